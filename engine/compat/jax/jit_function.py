"""`jax.jit` and `jax.make_jaxpr`: a function staged out into the IR, once per input signature.

A call flattens its arguments (pytrees) into leaves; each array leaf's shape, dtype and weak type,
and each static argument's value, make the signature (engine/capture/specialisation.py, the cache
torch.compile and tf.function keep their graphs in, which words a retrace's reason). A miss traces
the function (tracing.py) on stand-ins holding the same values — Python side effects such as
`print` happen then, once per trace, as in JAX — and records the graph as a static graph of
capture kind "jit" with its jaxpr. Every call then runs the graph op by op through the engine
(engine/capture/trail.run), so an enclosing jax.grad differentiates through it and an enclosing
trace records its ops. Called inside another trace, a jitted function is inlined (JAX nests a
`jit` equation holding its jaxpr; the values are the same).
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import weakref

import numpy as np

from engine.capture import trail
from engine.capture.common import run_eager
from engine.codegen.training import make_runner
from engine.capture.specialisation import FIRST_CALL, GLOBAL, Specialisations, describe, signature, trace_title
from engine.hooks import OP_APPLIED, Message, subscribed
from engine.compat.jax import debug, tracing
from engine.compat.jax.array import Array, as_array, is_weak, set_weak, to_array, weak_types
from engine.compat.jax.jaxpr import format_jaxpr
from engine.compat.jax.tree_util import keystr, tree_flatten, tree_flatten_with_path, tree_unflatten
from engine.ir.graph import CALL, CONSTANT
from engine.ir.interpreter import evaluate
from engine.tensor import Tensor

MAX_RECORDED_TRACES = 4          # per function: later traces still run, and are counted
MAX_COMPILED_TRACES = 8          # per function: later traces (a shape that changes every call) run op by op


def _is_array_leaf(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float, complex))


class Staged:
    """One trace: the graph, how to rebuild the outputs, and what the graph reads besides the arguments."""

    def __init__(self, graph, out_tree, out_weak: list, lifted: list, weak: dict, shown: dict | None = None):
        self.graph = graph
        self.shown = shown or {}       # value id -> what the jaxpr calls it (tracing.Trace.shown_as)
        self.runner = None             # the compiled forward (engine/codegen/training.py), once compiled
        self.out_tree = out_tree
        self.out_weak = out_weak
        self.lifted = lifted           # tensors an enclosing jax.grad differentiates, read by reference
        self.weak = weak               # value id -> weakly typed (for the jaxpr's text)
        self.calls = None              # engine.record.calls' call site once recorded
        self.prints = debug.graph_prints(graph)     # jax.debug.print in it: runs op by op, writing as it goes

    @property
    def jaxpr(self) -> str:
        return format_jaxpr(self.graph, self.weak, self.shown)

    def run(self, leaves: list):
        inputs = list(leaves) + list(self.lifted)
        prints = self.prints
        if self.runner is not None and not any(t._requires_grad for t in inputs) and tracing.active() is None \
                and not tracing.FORWARD and not prints:
            # the compiled kernels (as torch.compile runs them); a call a jax.grad differentiates (or a
            # jax.jvp pushes tangents through) runs the graph op by op instead, so its gradients (of any
            # order) are the engine's autograd's, and its tangents the JVP rules'
            try:
                outs = self.runner(*inputs)
            except Exception as exc:  # noqa: BLE001 - a kernel that fails: the graph runs op by op, and says so
                self.runner = None
                said = f"{type(exc).__name__}: {exc}"
                trail.warn(Message("warning.jit_kernel_failed", f"jax.jit {self.graph.name}: the compiled graph failed "
                                   f"({said}); it runs on the engine's ops instead",
                                   label=f"jax.jit {self.graph.name}", quote=said[:900]))
                return self.run(leaves)
            if self.calls is not None and self.calls.active():
                self.calls.add(list(leaves), outs, replay=(self.graph, inputs) if trail.has_control_flow(self.graph)
                               else None)
        else:
            # (a graph with jax.debug.print runs op by op: its prints are written as their nodes run)
            with subscribed(OP_APPLIED, debug.write) if prints else contextlib.nullcontext():
                outs = trail.run(self.calls, self.graph, inputs, list(leaves))
        arrays = [set_weak(as_array(o), w) for o, w in zip(outs, self.out_weak)]
        return tree_unflatten(self.out_tree, arrays)


def stage(fun, args: tuple, kwargs: dict, dynamic: list, name: str, why: str) -> tuple[Staged, tracing.Trace]:
    """Trace `fun(*args, **kwargs)` where `dynamic[i]` says which flattened leaves of (args, kwargs)
    are traced arrays (the others are Python values baked in)."""
    leaves, tree = tree_flatten((args, kwargs))
    trace = tracing.Trace(name, why)
    g = trace.graph
    stand_ins = []
    for i, (leaf, is_dynamic) in enumerate(zip(leaves, dynamic)):
        if not is_dynamic:
            stand_ins.append(leaf)
            continue
        a = to_array(leaf)
        # a stand-in: no autograd history of the caller's, and a view of its array (the tracer also knows a
        # tensor by its array: a closure over the argument's array, jit(lambda a: a * X)(X), stays a constant)
        t = set_weak(Array(a.array.view()), is_weak(a))
        trace.bind(t, g.placeholder(_leaf_name(i), a.array.shape, a.array.dtype))
        stand_ins.append(t)
    call_args, call_kwargs = tree_unflatten(tree, stand_ins)
    with trace:
        out = fun(*call_args, **call_kwargs)
        out_leaves, out_tree = tree_flatten(out)
        out_arrays = [to_array(o) for o in out_leaves]
        values = [trace.value_of(o) for o in out_arrays]
    g.current_line = g.current_module = None
    g.output(values)
    staged = Staged(g, out_tree, [is_weak(o) for o in out_arrays], list(trace.lifted), weak_types(trace),
                    trace.shown_as)
    # the trace's own values (the arguments' stand-ins, its ops' results) that the function let escape (a
    # global assigned in it) print as the tracers they were, as JAX's leaked tracers do
    own = {id(t) for t in stand_ins}
    for t in trace._alive:
        v = trace.values.get(id(t))
        if v is not None and v.producer is not None and (v.producer.kind == CALL or id(t) in own):
            t.__dict__["_leaked"] = True
    return staged, trace


def _leaf_name(i: int) -> str:
    return f"arg{i}"


def _static_positions(fun, static_argnums, static_argnames) -> tuple[set, set]:
    nums = {static_argnums} if isinstance(static_argnums, int) else set(static_argnums or ())
    names = {static_argnames} if isinstance(static_argnames, str) else set(static_argnames or ())
    try:
        params = list(inspect.signature(fun).parameters)
    except (TypeError, ValueError):
        params = []
    for n in list(names):
        if n in params:
            nums.add(params.index(n))
    for i in list(nums):
        if 0 <= i < len(params):
            names.add(params[i])
    return nums, names


def _split(args, kwargs, static_nums, static_names):
    """Which flattened leaves are traced: array-like leaves of non-static arguments."""
    dynamic = []
    for i, a in enumerate(args):
        for leaf in tree_flatten(a)[0]:
            dynamic.append(i not in static_nums and _is_array_leaf(leaf))
    for k in sorted(kwargs):
        for leaf in tree_flatten(kwargs[k])[0]:
            dynamic.append(k not in static_names and _is_array_leaf(leaf))
    return dynamic


# f -> {its static argument positions -> its traces}: as JAX's cache is keyed by the function, `jax.jit(f)(4.)`
# then `jax.jit(f)(5.)` trace f once (a print in f runs once; a global it read stays what it was then)
_TRACES_OF: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _traces_of(fun, statics: tuple) -> Specialisations:
    try:
        per_fun = _TRACES_OF.setdefault(fun, {})
    except TypeError:                          # not weakly referable (a builtin): its own cache
        return Specialisations()
    return per_fun.setdefault(statics, Specialisations())


def _closed_over(nodes: list, inputs: list) -> list:
    """The values of the enclosing trace that a jitted function's ops (`nodes`) read other than its
    arguments and constants: what it closes over, which JAX's jit equation takes as inputs first."""
    made = {v.id for n in nodes for v in n.outputs}
    given = {v.id for v in inputs}
    found: dict = {}
    for n in nodes:
        for v in n.inputs:
            if v.id not in made and v.id not in given and not (v.producer is not None and v.producer.kind == CONSTANT):
                found.setdefault(v.id, v)
    return list(found.values())


class Jitted:
    """What `jax.jit(f)` returns."""

    def __init__(self, fun, static_argnums=(), static_argnames=(), donate_argnums=(), **options):
        self._fun = fun
        self._static_nums, self._static_names = _static_positions(fun, static_argnums, static_argnames)
        self._cache = _traces_of(fun, (tuple(sorted(self._static_nums)), tuple(sorted(self._static_names))))
        self.__name__ = getattr(fun, "__name__", "fun")
        functools.update_wrapper(self, fun, updated=())

    def __get__(self, instance, owner):
        if instance is None:
            return self
        return functools.partial(self, instance)

    def _key(self, args, kwargs, dynamic) -> tuple:
        leaves = tree_flatten((args, kwargs))[0]
        names, values, weak = [], [], []
        params = _param_names(self._fun, len(args))
        paths = _leaf_paths(args, kwargs, params)
        for leaf, is_dynamic, path in zip(leaves, dynamic, paths):
            names.append(path)
            if is_dynamic:
                a = to_array(leaf)
                values.append(a)
                weak.append(is_weak(a))
            else:
                try:
                    hash(leaf)
                except TypeError:
                    raise ValueError(f"Non-hashable static arguments are not supported. An error occurred while "
                                     f"trying to hash an object of type {type(leaf)}, {leaf!r}.") from None
                values.append(leaf)
        tree = repr(tree_flatten((args, kwargs), is_leaf=lambda x: False)[1])
        return signature(names, values, guards=(("pytree structure", GLOBAL, tree),
                                                ("weak types", GLOBAL, tuple(weak))))

    def _check_arguments(self, args, kwargs) -> None:
        """JAX's TypeError for an argument that is neither an array (a pytree of them) nor static."""
        params = _param_names(self._fun, len(args))
        named = [(i, params[i] if i < len(params) else f"args[{i}]", a) for i, a in enumerate(args)] + \
            [(k, k, kwargs[k]) for k in sorted(kwargs)]
        for where, name, a in named:
            if where in self._static_nums or where in self._static_names:
                continue
            for path, leaf in tree_flatten_with_path(a)[0]:
                if not _is_array_leaf(leaf) and not hasattr(leaf, "__jax_array__"):
                    raise TypeError(
                        f"Error interpreting argument to {self._fun!r} as an abstract array. The problematic value "
                        f"is of type {type(leaf)} and was passed to the function at path {name}{keystr(path)}.\n"
                        "This typically means that a jit-wrapped function was called with a non-array argument, and "
                        "this argument was not marked as static using the static_argnums or static_argnames "
                        "parameters of jax.jit.")

    def __call__(self, *args, **kwargs):
        self._check_arguments(args, kwargs)
        trace = tracing.active()
        if trace is not None:                  # inside another trace: inlined, and noted as JAX's jit equation
            return self._nested_call(trace, args, kwargs)
        dynamic = _split(args, kwargs, self._static_nums, self._static_names)
        key = self._key(args, kwargs, dynamic)
        staged = self._cache.lookup(key)
        if staged is None:
            staged = self._trace(args, kwargs, dynamic, key)
        leaves = [to_array(x) for x, d in zip(tree_flatten((args, kwargs))[0], dynamic) if d]
        return staged.run(leaves)

    def _nested_call(self, trace, args, kwargs):
        """Called inside another trace: f's ops go into that trace (its values and gradients are those
        ops'), and the trace notes them as one call (jaxpr.JIT_CALLS), which its jaxpr prints as JAX's
        `jit[name=f jaxpr={ ... }]` equation (a function called twice: its jaxpr once, `let f = ... in`)."""
        dynamic = _split(args, kwargs, self._static_nums, self._static_names)
        leaves, tree = tree_flatten((args, kwargs))
        leaves = [to_array(x) if d else x for x, d in zip(leaves, dynamic)]
        g = trace.graph
        start = len(g.nodes)
        inputs = [trace.value_of(x) for x, d in zip(leaves, dynamic) if d]
        call_args, call_kwargs = tree_unflatten(tree, leaves)
        out = self._fun(*call_args, **call_kwargs)
        outputs = [trace.value_of(to_array(o)) for o in tree_flatten(out)[0]]
        tracing.note_call(trace, self.__name__, _closed_over(g.nodes[start:], inputs) + inputs, outputs, start)
        return out

    def _trace(self, args, kwargs, dynamic, key) -> Staged:
        retrace = self._cache.reason(key)
        self._cache.retraced(key, retrace)
        staged, trace = stage(self._fun, args, kwargs, dynamic, self.__name__, "jit")
        if staged.lifted:
            # it reads values an enclosing jax.grad differentiates: those are this call's own, so
            # the trace is not reused by a later call (which would read stale ones)
            return staged
        self._cache.add(key, staged)
        self._record(staged, trace, key, retrace)
        return staged

    def _record(self, staged: Staged, trace, key, retrace) -> None:
        count = len(self._cache)
        label = f"jax.jit {self.__name__}"
        if retrace is None:
            reason = FIRST_CALL
        else:
            reason = self._cache.note(retrace)
            trail.warn(self._cache.warning(label, retrace))
        recorded = count <= MAX_RECORDED_TRACES and trail.recording()
        if count > MAX_COMPILED_TRACES:
            if count == MAX_COMPILED_TRACES + 1:
                trail.warn(Message("warning.jit_traces_cut", f"{label} traced {count} times: later traces are not "
                                   "compiled (they run op by op); pass arrays of one shape, or mark Python values static",
                                   label=label, n=count))
            return
        runner, note = make_runner(staged.graph, [], keep_steps=recorded)
        staged.runner = runner
        if not recorded:
            return
        spec = ", ".join(describe(p) for p in key if p[1] != GLOBAL)
        try:
            text = staged.jaxpr
        except Exception as exc:  # noqa: BLE001 - the jaxpr is shown beside the graph; the graph still is
            text = f"(no jaxpr text: {exc})"
        staged.calls = trail.graph_captured(
            staged.graph, "jit", trace_title(label, f"({spec})", count), target=self._fun,
            warnings=[w for w in (reason, note) if w], values=dict(trace.arrays), runner=runner,
            inputs=[Array(trace.arrays[v.id]) for v in staged.graph.inputs],
            eager=self._eager(trace), pipeline=runner.pipeline,
            extra={"retrace_reason": reason, "function": self.__name__, "signature": f"({spec})",
                   "tracing_count": count, "jaxpr": text, "backend": getattr(runner, "backend", None)})
        if runner.pipeline is not None:
            runner.pipeline.steps = []     # the record has made its snapshots: the pass-by-pass graphs can go

    def _eager(self, trace):
        """The graph run op by op, for the record's eager-vs-compiled timing (not a call of the program's)."""
        arrays = [trace.arrays[v.id] for v in trace.graph.inputs]

        def eager():
            trail.capture_started()
            try:
                run_eager(trace.graph, [Array(a) for a in arrays])
            finally:
                trail.capture_ended()
        return eager

    def lower(self, *args, **kwargs):
        return _Lowered(make_jaxpr(self._fun)(*args, **kwargs))

    def eval_shape(self, *args, **kwargs):
        return self(*args, **kwargs)

    def __repr__(self) -> str:
        return f"<PjitFunction of {self._fun!r}>"


class _Lowered:
    def __init__(self, closed):
        self.closed = closed

    def as_text(self) -> str:
        return str(self.closed)

    def compile(self):
        return self


def _param_names(fun, n: int) -> list[str]:
    try:
        params = [p.name for p in inspect.signature(fun).parameters.values()
                  if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    except (TypeError, ValueError):
        params = []
    return params + [f"args[{i}]" for i in range(len(params), n)]


def _leaf_paths(args, kwargs, params) -> list[str]:
    paths = []
    for i, a in enumerate(args):
        n = len(tree_flatten(a)[0])
        base = params[i] if i < len(params) else f"args[{i}]"
        paths += [base] if n == 1 else [f"{base}[{j}]" for j in range(n)]
    for k in sorted(kwargs):
        n = len(tree_flatten(kwargs[k])[0])
        paths += [k] if n == 1 else [f"{k}[{j}]" for j in range(n)]
    return paths


def jit(fun=None, *, static_argnums=(), static_argnames=(), donate_argnums=(), **options):
    """`jax.jit(f)` and `@jax.jit`, `@partial(jax.jit, static_argnums=...)`."""
    if fun is None:
        return functools.partial(jit, static_argnums=static_argnums, static_argnames=static_argnames,
                                 donate_argnums=donate_argnums, **options)
    return Jitted(fun, static_argnums, static_argnames, donate_argnums, **options)


class ClosedJaxpr:
    """What `jax.make_jaxpr(f)(*args)` returns: prints as JAX's jaxpr text."""

    def __init__(self, staged: Staged, name: str):
        self._staged = staged
        self.name = name

    @property
    def jaxpr(self):
        return self

    @property
    def eqns(self) -> list:
        return [n for n in self._staged.graph.op_nodes()]

    @property
    def in_avals(self) -> list:
        return [f"ShapedArray({v.dtype}[{','.join(map(str, v.shape))}])" for v in self._staged.graph.inputs]

    @property
    def consts(self) -> list:
        return [n.value for n in self._staged.graph.nodes if n.kind == "constant" and n.value.ndim > 0]

    def pretty_print(self, **kwargs) -> str:
        return str(self)

    def __str__(self) -> str:
        return self._staged.jaxpr

    __repr__ = __str__


def make_jaxpr(fun, static_argnums=(), axis_env=None, return_shape=False, abstracted_axes=None):
    """`jax.make_jaxpr(f)(*args)`: the jaxpr of f traced on these arguments."""
    nums, names = _static_positions(fun, static_argnums, ())
    name = getattr(fun, "__name__", "fun")

    @functools.wraps(fun)
    def make(*args, **kwargs):
        dynamic = _split(args, kwargs, nums, names)
        staged, _ = stage(fun, args, kwargs, dynamic, name, "make_jaxpr")
        closed = ClosedJaxpr(staged, name)
        if return_shape:
            arrays = evaluate(staged.graph, [to_array(x).array for x, d in zip(tree_flatten((args, kwargs))[0], dynamic)
                                             if d] + [t.array for t in staged.lifted])
            shapes = [ShapeDtypeStruct(arrays[v.id].shape, arrays[v.id].dtype) for v in staged.graph.outputs]
            return closed, tree_unflatten(staged.out_tree, shapes)
        return closed
    return make


class ShapeDtypeStruct:
    """`jax.ShapeDtypeStruct`: a shape and a dtype, no values."""

    def __init__(self, shape, dtype, **kwargs):
        self.shape, self.dtype = tuple(shape), np.dtype(dtype)
        self.ndim, self.size = len(self.shape), int(np.prod(self.shape))

    def __repr__(self) -> str:
        return f"ShapeDtypeStruct(shape={self.shape}, dtype={self.dtype.name})"

    def __eq__(self, other) -> bool:
        return isinstance(other, ShapeDtypeStruct) and (self.shape, self.dtype) == (other.shape, other.dtype)

    __hash__ = object.__hash__


def eval_shape(fun, *args, **kwargs):
    """`jax.eval_shape`: the outputs' shapes and dtypes (computed by running the function once)."""
    out = fun(*args, **kwargs)
    leaves, tree = tree_flatten(out)
    return tree_unflatten(tree, [ShapeDtypeStruct(to_array(x).shape, to_array(x).dtype) for x in leaves])
