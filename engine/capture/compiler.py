"""`torch.compile(fn_or_module)` / `engine.compile`: capture (the AST compiler, specialized per input
signature as TorchDynamo specializes), the pass pipeline, then execution of the optimized graph.

The execution seam is `make_runner(graph, wrt)`: a callable on Tensors (placeholder order) that
returns output Tensors whose grad_fn runs the backward graph. With `engine.codegen` present it is
`engine.codegen.training.CompiledAutograd` (generated kernels via `engine.codegen.executor.build`);
otherwise, or if code generation fails for this graph, `InterpretedAutograd` below runs the same
forward/backward split on the reference interpreter.

Code the compiler cannot capture (an unsupported construct) runs eagerly instead, as a graph
break does in PyTorch, and the run record says why: results are never wrong, only slower.
"""
from __future__ import annotations

import contextlib
import importlib.util
import inspect
import io
import warnings

import numpy as np

from engine import autograd
from engine.autograd_function import Function, FunctionCtx, attach_custom_node
from engine.capture import trail
from engine.capture.ast_compiler import ScriptError, user_defined
from engine.capture.common import (arguments, changed_state, frozen_random_masks, gather_inputs, is_module,
                                   module_state, pack_outputs, snapshot_state)
from engine.capture.scripting import compile_graph
from engine.capture.specialisation import GLOBAL, Specialisations, signature, tensor_part, value_part
from engine.errors import UnsupportedError
from engine.ir.graph import Graph
from engine.tensor import Tensor

MAX_RECORDED_SPECIALIZATIONS = 3
MAX_SPECIALIZATIONS = 8


class AutogradRunner:
    """A graph's forward and backward joined to eager autograd, as torch.compile's AOTAutograd does.

    The forward runs with the values its backward graph reads ("saved") as extra outputs; its one
    differentiable output gets a grad_fn (`CompiledFunctionBackward`, PyTorch's name) whose
    backward runs the backward graph on them, so `loss.backward()` and `opt.step()` work unchanged
    and parameters' `.grad` are filled by ordinary AccumulateGrad nodes. Subclasses run the two
    graphs: `run_forward(arrays)` (outputs, then saved values) and `run_backward(seeds, saved)`
    (gradients in `wrt` order), on numpy arrays."""

    backend: str | None = None
    has_backward = False

    def split(self, graph: Graph, wrt: list[str] | None):
        """(the forward graph with the saved values as extra outputs, the backward graph or None),
        and what calls need: which inputs get gradients, where each saved value comes from."""
        from engine.autodiff import backward_graph, differentiable_value
        self.graph = graph
        self.num_outputs = len(graph.outputs)
        ids = [n.id for n in graph.placeholders]
        self.wrt = wrt if wrt is not None else [v.id for v in graph.inputs if differentiable_value(v)]
        self.wrt_positions = [ids.index(w) for w in self.wrt]
        self.seed_specs = [(tuple(v.shape), np.dtype(v.dtype)) for v in graph.outputs]
        self.float_outputs = [i for i, v in enumerate(graph.outputs) if differentiable_value(v)]
        self.saved_plan: list[tuple[str, int]] = []
        self.has_backward = bool(self.wrt)
        if not self.wrt:
            return graph, None
        bwd = backward_graph(graph, self.wrt)
        forward = graph.copy()
        values = forward.values()
        computed = [s for s in bwd.saved if s not in ids]
        forward.output(list(forward.outputs) + [values[s] for s in computed])
        # each saved value: a graph input (placeholder index) or an extra forward output
        self.saved_plan = [("input", ids.index(s)) if s in ids else ("output", self.num_outputs + computed.index(s))
                           for s in bwd.saved]
        return forward, bwd.graph

    def run_forward(self, arrays: list) -> list:
        raise NotImplementedError

    def run_backward(self, seeds: list, saved: list) -> list:
        raise NotImplementedError

    def __call__(self, *tensors):
        needs = tuple(isinstance(t, Tensor) and t.requires_grad for t in tensors)
        needs_grad = self.has_backward and autograd.is_grad_enabled() and any(needs[p] for p in self.wrt_positions)
        if needs_grad and len(self.float_outputs) != 1:
            raise UnsupportedError("compiled training supports one differentiable output "
                                   f"(this graph returns {len(self.float_outputs)})")
        arrays = [t.array if isinstance(t, Tensor) else np.asarray(t) for t in tensors]
        outs = self.run_forward(arrays)
        results = [Tensor(o) for o in outs[: self.num_outputs]]
        if needs_grad:
            # the node is made directly (Function.apply's generic checks cost more than the
            # rest of this call): same node, same backward protocol
            ctx = FunctionCtx(needs)
            ctx.runner = self
            ctx.saved_arrays = [arrays[i] if kind == "input" else outs[i] for kind, i in self.saved_plan]
            del outs
            attach_custom_node(RunnerFunction, ctx, tensors, results[self.float_outputs[0]])
        return results

    def gradients(self, ctx, grad) -> tuple:
        """The backward of one call: a gradient (an array, or None) per input of the call."""
        seeds = [np.zeros(shape, dtype) for shape, dtype in self.seed_specs]
        d = self.float_outputs[0]
        g = np.asarray(getattr(grad, "array", grad), dtype=seeds[d].dtype)
        # a broadcast gradient is materialized: a compiled backward is specialized for contiguous seeds
        seeds[d] = g if g.shape == seeds[d].shape else np.ascontiguousarray(np.broadcast_to(g, seeds[d].shape))
        grads = self.run_backward(seeds, ctx.saved_arrays)
        # arrays, not Tensors: the node takes them as they are, so an unshared gradient becomes
        # .grad without a copy
        by_position = dict(zip(self.wrt_positions, grads))
        del grads
        return tuple(by_position.pop(p, None) for p in range(len(ctx.needs_input_grad)))


class RunnerFunction(Function):
    """The autograd.Function every runner's node names; its backward asks the runner that made
    the node. Named as PyTorch names it (the node shows as `CompiledFunctionBackward`); the
    Python name differs from CompiledFunction below, what torch.compile(fn) returns."""

    @staticmethod
    def forward(ctx, *tensors):
        raise RuntimeError("the forward runs in AutogradRunner.__call__")

    @staticmethod
    def backward(ctx, grad):
        return ctx.runner.gradients(ctx, grad)


RunnerFunction.__name__ = RunnerFunction.__qualname__ = "CompiledFunction"


class InterpretedAutograd(AutogradRunner):
    """The interpreter backend: both graphs run on the reference interpreter."""

    backend = "interpreter"

    def __init__(self, graph: Graph, wrt: list[str] | None = None):
        self.forward, self.backward = self.split(graph, wrt)
        self.kernels: list = []

    def run_forward(self, arrays: list) -> list:
        from engine.ir.interpreter import run
        return run(self.forward, arrays)

    def run_backward(self, seeds: list, saved: list) -> list:
        from engine.ir.interpreter import run
        return run(self.backward, seeds + saved)


def make_runner(graph: Graph, wrt: list[str]):
    """The backend seam: generated kernels when engine.codegen exists and handles the graph."""
    if importlib.util.find_spec("engine.codegen.training") is not None:
        try:
            from engine.codegen.training import CompiledAutograd
            return CompiledAutograd(graph, wrt), None
        except Exception as exc:  # noqa: BLE001 - fall back, and say so in the record
            return InterpretedAutograd(graph, wrt), f"code generation failed ({type(exc).__name__}: {exc}); ran on the interpreter"
    return InterpretedAutograd(graph, wrt), None


class _KnownState:
    """A module whose parameters and buffers were just listed (module_state's (name, tensor)
    pairs), for gather_inputs, which would otherwise walk the module's tree again."""

    def __init__(self, state: list):
        self.state = state

    def named_parameters(self):
        return self.state

    def named_buffers(self):
        return ()


class _Entry:
    def __init__(self, graph, structure, kinds, runner):
        self.graph, self.structure, self.kinds, self.runner = graph, structure, kinds, runner
        self.calls = None                     # the call site the recorder gave for the graph
        # generated kernels do not say which branch a cond took: such a call's trail is replayed
        self.control_flow = trail.has_control_flow(graph)


class CompiledFunction:
    """What `torch.compile(fn)` returns; for a module, see CompiledModule."""

    def __init__(self, fn, module=None):
        self._fn = fn
        self._module = module
        self._target = type(module).forward if module is not None else fn
        self.__name__ = type(module).__name__ if module is not None else getattr(fn, "__name__", "compiled")
        self._params = list(inspect.signature(self._target).parameters.values())[1 if module is not None else 0:]
        self._signature = inspect.Signature(self._params)
        # a call with every argument given positionally needs no binding (the training loop's call)
        self._positional = all(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in self._params)
        self._names = [p.name for p in self._params]
        self._cache = Specialisations(verb="recompiled", record_limit=MAX_RECORDED_SPECIALIZATIONS)
        self.graph_breaks: list[str] = []
        self._too_many = False

    @property
    def retraces(self) -> list[dict]:
        return self._cache.retraces

    def _key(self, args, state=None) -> tuple:
        guards = [("grad_mode", GLOBAL, autograd.is_grad_enabled())]
        if self._module is not None:
            guards.append(value_part("self.training", getattr(self._module, "training", None)))
            guards += [tensor_part(n, t, requires_grad=True)
                       for n, t in (state if state is not None else module_state(self._module))]
        return signature(self._names, args, requires_grad=True, guards=tuple(guards))

    def __call__(self, *args, **kwargs):
        if self._positional and not kwargs and len(args) == len(self._params):
            values = list(args)
        else:
            bound = self._signature.bind(*args, **kwargs)
            bound.apply_defaults()
            values = [bound.arguments[p.name] for p in self._params]
        # the module's parameters and buffers, walked once per call: the guard key and the graph's
        # inputs both read them (the walk is most of a small model's call overhead)
        state = module_state(self._module) if self._module is not None else None
        key = self._key(values, state)
        entry = self._cache.lookup(key)
        if entry is None and len(self._cache) >= MAX_SPECIALIZATIONS:
            # like torch._dynamo's cache_size_limit: past it, recompiling costs more than it saves
            if not self._too_many:
                self._too_many = True
                self._graph_break(ScriptError(f"recompiled {MAX_SPECIALIZATIONS} times (a new input signature "
                                              "at almost every call); running eagerly from now on", None))
            return self._fn(*args, **kwargs)
        if entry is None:
            entry = self._capture(values, key)
            self._cache.add(key, entry)
        if entry is False:                       # graph break: run eagerly
            return self._fn(*args, **kwargs)
        inputs = self._inputs(entry, values, state)
        outputs = entry.runner(*inputs)
        if entry.calls is not None and entry.calls.active():
            entry.calls.add(arguments(entry.kinds, inputs), outputs,
                            replay=(entry.graph, inputs) if entry.control_flow else None)
        return pack_outputs(outputs, entry.structure)

    forward = __call__

    def _inputs(self, entry, values, state=None) -> list:
        return gather_inputs(entry.kinds, values, self._module if state is None else _KnownState(state))

    def _capture(self, values, key):
        reason = self._cache.reason(key)
        self._cache.retraced(key, reason)
        try:
            graph, structure, kinds = compile_graph(self._target, self.__name__, list(values), module=self._module,
                                                    bool_inputs=False)
        except ScriptError as exc:
            # no source, or library code the compiler cannot parse: a guarded trace instead (user
            # code with an unsupported construct breaks the graph: it may have side effects)
            library = not user_defined(self._target) and not exc.mutates_state
            traced = self._trace_capture(values) if exc.no_source or library else None
            if traced is not None:
                graph, structure, kinds = traced
            else:
                return self._graph_break(exc)
        frozen = frozen_random_masks(graph)
        if frozen:
            return self._graph_break(ScriptError(frozen[0], None))
        wrt = []
        if autograd.is_grad_enabled():
            for node, t in zip(graph.placeholders, gather_inputs(kinds, values, self._module)):
                if t.requires_grad and node.out.dtype.kind == "f":
                    wrt.append(node.id)
        try:
            runner, note = make_runner(graph, wrt)
        except UnsupportedError as exc:       # e.g. a gradient through a while_loop: eager is exact
            return self._graph_break(exc)
        entry = _Entry(graph, structure, kinds, runner)
        if trail.recording() and self._cache.recorded():
            warnings = [w for w in (note, reason and self._cache.note(reason)) if w]
            entry.calls = trail.graph_captured(
                graph, "compile", f"compiled {self.__name__}", target=self._fn, warnings=warnings,
                backward=bool(wrt), inputs=self._inputs(entry, values), runner=runner, eager=self._eager(values),
                extra={"retrace": reason, "backend": getattr(runner, "backend", None) or _backend_of(runner),
                       "function": self.__name__})
        return entry

    def _trace_capture(self, values):
        """Without source, trace instead; a trace that read a tensor's value in Python may have frozen
        a branch, so then it is not used (the call runs eagerly): a compiled result is never wrong."""
        from engine.capture.tracing import trace_values
        before = snapshot_state(self._module)
        try:
            graph, tracer, structure, kinds = trace_values(self._fn, list(values), self.__name__, module=self._module)
        except UnsupportedError:          # e.g. an in-place write into a traced tensor
            changed_state(self._module, before, restore=True)
            return None
        if changed_state(self._module, before, restore=True):    # this extra forward must leave no trace
            return None
        return None if tracer.frozen else (graph, structure, kinds)

    def _graph_break(self, exc) -> bool:
        msg = f"torch.compile fell back to eager for {self.__name__} (graph break): {exc}"
        self.graph_breaks.append(msg)
        trail.warn(msg)
        return False

    def _eager(self, values):
        """The user's own function run eagerly, for the record's timings (prints silenced, and captured
        functions it calls not recorded as the program's calls: it is only being timed)."""
        def eager():
            trail.capture_started()
            try:
                with autograd.no_grad(), _silenced():
                    self._fn(*values)
            finally:
                trail.capture_ended()
        return eager

    @property
    def graph(self) -> Graph:
        entry = self._cache.entries.get(self._cache.last)
        if not entry:
            raise RuntimeError(f"{self.__name__} has not been called yet (torch.compile captures at the first call)")
        return entry.graph

    def __repr__(self) -> str:
        return f"<compiled {self.__name__}>"


class CompiledModule(CompiledFunction):
    """`torch.compile(module)`: calling it runs the compiled forward; everything else is the module's
    (parameters, train/eval, state_dict), so an ordinary training loop works unchanged."""

    def __init__(self, module):
        self.__dict__["_orig_mod"] = module
        super().__init__(module, module=module)

    def __getattr__(self, name):
        mod = self.__dict__.get("_orig_mod")
        if mod is None:
            raise AttributeError(name)
        return getattr(mod, name)

    def __repr__(self) -> str:
        return f"OptimizedModule(\n  (_orig_mod): {self._orig_mod!r}\n)"


@contextlib.contextmanager
def _silenced():
    """The user's function run again only to be timed: what it prints or warns was shown when it ran
    for real, so stdout, stderr and warnings are dropped (warnings by swapping the hook that shows
    them: changing the filters would make Python forget which warnings it has shown)."""
    show = warnings.showwarning
    warnings.showwarning = lambda *args, **kwargs: None
    try:
        with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
            yield
    finally:
        warnings.showwarning = show


def _backend_of(runner) -> str | None:
    fwd = getattr(runner, "forward", None)
    return getattr(fwd, "backend", None)


def compile(model=None, *, fullgraph: bool = False, dynamic=None, backend=None, mode=None, options=None,
            disable: bool = False):
    """`torch.compile(fn_or_module)`; also usable as `@torch.compile` or `@torch.compile(mode=...)`."""
    if model is None:
        return lambda m: compile(m, fullgraph=fullgraph, dynamic=dynamic, backend=backend, mode=mode,
                                 options=options, disable=disable)
    if disable:
        return model
    if is_module(model):
        return CompiledModule(model)
    if callable(model):
        return CompiledFunction(model)
    raise TypeError(f"torch.compile takes a function or an nn.Module, not a {type(model).__name__}")
