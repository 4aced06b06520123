"""lax.cond, lax.switch, lax.while_loop, lax.fori_loop and lax.scan, with JAX's semantics.

`cond` and `while_loop` trace their functions into closed sub-graphs first (tracing.Trace with a
parent), as JAX traces both branches whatever the predicate: Python side effects of both run, and
the branches must return the same types. Inside a jit or make_jaxpr trace, a traced predicate
makes one `cond` (or `while`) node of the enclosing graph; otherwise the branch taken runs its
graph op by op (so jax.grad differentiates it). A traced cond differentiated inside the trace gets
a backward that is again a traced cond (_traced_cond). `scan`, and `fori_loop` with static bounds
(JAX lowers it to a scan carrying the counter), are one loop node of a jit or make_jaxpr trace
(_emit_scan: printed as JAX's `scan`), run op by op, hence differentiable; outside a trace, or
differentiated inside one, they run their body once per step. `while_loop` is not
reverse-differentiable in JAX, and is refused as JAX refuses it.
"""
from __future__ import annotations

import weakref

import numpy as np

from engine import autograd
from engine.autodiff import inline, vjp_graph
from engine.autograd_function import FunctionCtx, attach_custom_node
from engine.capture.common import run_eager
from engine.compat.jax import numpy as jnp
from engine.compat.jax import debug, forward, tracing
from engine.compat.jax.array import Array, as_array, default_int, is_weak, note_nested_weak, promote, set_weak, \
    to_array, weak_types
from engine.compat.jax.tree_util import tree_flatten, tree_map, tree_unflatten
from engine.errors import UnsupportedError
from engine.ir.graph import COND, CONSTANT, OUTPUT, PLACEHOLDER
from engine.ir.interpreter import truth
from engine.tensor import Tensor, apply

# a branch's or loop body's graph -> its values' weak types (value id -> bool), carried into the enclosing
# trace when the graph is copied into it (_rehomed), for convert_element_type's weak_type in the jaxpr
_WEAK_OF: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()

WHILE_GRAD = ("Reverse-mode differentiation does not work for lax.while_loop or lax.fori_loop with dynamic "
              "start/stop values. Try using lax.scan, or using fori_loop with static start/stop.")


class _Branch:
    """One function traced into a closed sub-graph: operands, then captured values, as inputs."""

    def __init__(self, fun, operands: list, tree, name: str, why: str, prebound: list):
        parent = tracing.active()
        self.trace = tracing.Trace(name, why, parent=_Root() if parent is None else parent)
        g = self.trace.graph
        stand_ins = []
        for i, x in enumerate(operands):
            # a view, not the caller's array: the tracer knows a tensor by its array too, and a closure over
            # the caller's array (lax.fori_loop(0, 3, lambda i, v: v * X, X)) must stay a value of its own
            t = set_weak(Array(x.array.view()), is_weak(x))
            self.trace.bind(t, g.placeholder(f"operand{i}", x.array.shape, x.array.dtype))
            stand_ins.append(t)
        for t in prebound:                       # another branch's captures first: same input order
            self.trace.value_of(t)
        args = tree_unflatten(tree, stand_ins) if tree is not None else stand_ins
        with self.trace:
            out = fun(*args) if tree is None else fun(args)
            leaves, self.out_tree = tree_flatten(out)
            self.outs = [to_array(o) for o in leaves]
            values = [self.trace.value_of(o) for o in self.outs]
        g.current_line = g.current_module = None
        g.output(values)
        self.graph = g
        _WEAK_OF[g] = weak_types(self.trace)

    @property
    def captured(self) -> list:
        return self.trace.captured

    def types(self) -> list:
        return [(o.shape, o.dtype) for o in self.outs]

    def weak(self) -> list:
        return [is_weak(o) for o in self.outs]

    def add_inputs(self, tensors: list) -> None:
        """Unused inputs for values another branch captured (a cond's branches take the same inputs)."""
        for t in tensors:
            if not any(t is c for c in self.captured):      # (identity: `in` would compare arrays)
                self.graph.placeholder(f"captured_{len(self.captured)}", t.array.shape, t.array.dtype)
                self.captured.append(t)


class _Root:
    """The parent of a branch traced outside any trace: it knows no tensor, so it captures none."""

    def knows(self, tensor) -> bool:
        return False


def _types_text(types: list) -> str:
    return "[" + ", ".join(f"ShapedArray({np.dtype(d).name}[{','.join(map(str, s))}])" for s, d in types) + "]"


def _requires_grad(tensors) -> bool:
    return any(isinstance(t, Tensor) and t._requires_grad for t in tensors)


def cond(pred, true_fun, false_fun, *operands, operand=None):
    if operand is not None:
        operands = (operand,)
    pred = to_array(pred)
    if pred.shape != ():
        raise TypeError(f"Pred must be a scalar, got {pred!r} of shape {pred.shape}.")
    if pred.dtype.kind not in "biu":
        raise TypeError(f"Pred type must be either boolean or number, got {pred.dtype.name}.")
    return _branches(pred, [false_fun, true_fun], operands, "cond")


def switch(index, branches, *operands, operand=None):
    if operand is not None:
        operands = (operand,)
    branches = list(branches)
    if not branches:
        raise ValueError("Empty branch sequence")
    index = to_array(index)
    if index.shape != ():
        raise TypeError(f"Branch index must be scalar, got {index!r} of shape {index.shape}.")
    if len(branches) == 1:
        return branches[0](*operands)
    # JAX's: the index made a strong int32 (an equation when it is weak or of another type), then clamped
    if index.dtype != np.dtype(np.int32) or is_weak(index):
        index = set_weak(as_array(apply("to_dtype", index, dtype=np.dtype(np.int32))), False)
    index = as_array(apply("clamp", index, min=0, max=len(branches) - 1))
    return _branches(index, branches, operands, "switch")


def _branches(index: Array, funs: list, operands: tuple, name: str):
    leaves, tree = tree_flatten(tuple(operands))
    arrays = [to_array(x) for x in leaves]
    staged, captured = [None] * len(funs), []
    order = [1, 0] if name == "cond" else range(len(funs))      # JAX traces cond's true_fun first
    for k in order:
        fun = funs[k]
        b = _Branch(lambda args, f=fun: f(*args), arrays, tree, getattr(fun, "__name__", f"branch{k}"), name,
                    prebound=list(captured))
        captured = list(b.captured)
        staged[k] = b
    for b in staged:
        b.add_inputs(captured)
    if name == "cond":
        _check_branches(staged[1], staged[0], funs[1], funs[0])
    else:
        for k, b in enumerate(staged[1:], 1):
            if b.out_tree != staged[0].out_tree or b.types() != staged[0].types():
                raise TypeError(f"switch branches must have equal output types, but branch 0 returns "
                                f"{staged[0].out_tree} {_types_text(staged[0].types())} and branch {k} returns "
                                f"{b.out_tree} {_types_text(b.types())}.")
    inputs = arrays + captured
    outer = tracing.active()
    # inside jit or make_jaxpr a cond is staged even on a concrete predicate, as JAX stages it
    staged_anyway = outer is not None and outer.why in ("jit", "make_jaxpr") and len(funs) == 2
    if outer is not None and (tracing.traced(index) or staged_anyway):
        taken = int(np.clip(int(index.array), 0, len(funs) - 1))
        operands = len(staged[0].trace.graph.inputs) - len(staged[0].captured)
        outs = _traced_cond(outer, index, [b.graph for b in staged], inputs, taken, operands, name == "switch")
    else:
        taken = int(np.clip(int(Tensor.item(index)), 0, len(funs) - 1))
        with debug.writing(staged[taken].graph):
            outs = run_eager(staged[taken].graph, inputs)
    weak = staged[0].weak()
    return tree_unflatten(staged[0].out_tree, [set_weak(as_array(o), w) for o, w in zip(outs, weak)])


def _where(fun) -> str:
    code = getattr(fun, "__code__", None)
    name = getattr(fun, "__name__", repr(fun))
    return f"{name} at {code.co_filename}:{code.co_firstlineno}" if code is not None else name


def _check_branches(true_b: _Branch, false_b: _Branch, true_fun, false_fun) -> None:
    """JAX's errors for branches whose outputs differ in structure, dtype or shape."""
    head = f"true_fun is {_where(true_fun)}\nfalse_fun is {_where(false_fun)}\n\n"
    if true_b.out_tree != false_b.out_tree:
        def kind(tree):
            return "a pytree leaf" if repr(tree) == "PyTreeDef(*)" else f"a {type(tree_unflatten(tree, [0] * tree.num_leaves))}"
        raise TypeError("cond branch outputs must have the same pytree structure, but they differ:\n\n" + head +
                        f"true_fun output is {kind(true_b.out_tree)} but false_fun output is {kind(false_b.out_tree)}, "
                        "so their Python types differ.\n\nRevise true_fun and/or false_fun so that they have the same "
                        "pytree structure.")
    many = len(true_b.outs) > 1
    for i, ((ts, td), (fs, fd)) in enumerate(zip(true_b.types(), false_b.types())):
        if (ts, td) == (fs, fd):
            continue
        at = f" at path [{i}]" if many else ""
        what = "dtypes" if td != fd else "shapes"
        raise TypeError("cond branches must have equal output types but they differ.\n\n" + head +
                        f"The output of true_fun{at} has type {np.dtype(td).name}[{','.join(str(n) for n in ts)}] but the corresponding output "
                        f"of false_fun has type {np.dtype(fd).name}[{','.join(str(n) for n in fs)}], so the {what} do not match.\n\n"
                        "Revise true_fun and/or false_fun so that all output types match.")


def _traced_cond(outer, index: Array, graphs: list, inputs: list, taken: int, operands: int | None,
                 switch: bool = False) -> list:
    """A cond on a traced index: one cond node of the enclosing graph, its values those of the branch
    taken (computed with the trace paused). Under a jax.grad inside the trace, each float output gets an
    autograd node whose backward is again a traced cond, over the branches' vjp graphs (graph autodiff,
    engine/autodiff.py), so the traced backward branches as the forward did (and its own backward too)."""
    with outer.paused(), autograd.no_grad():
        outs = run_eager(graphs[taken], inputs)
    values = _emit_cond(outer, index, graphs, inputs, operands, switch)
    needs = tuple(isinstance(t, Tensor) and t._requires_grad for t in inputs)
    results = []
    for j, (o, v) in enumerate(zip(outs, values)):
        if any(needs) and autograd.is_grad_enabled() and o.array.dtype.kind == "f":
            o = _with_cond_backward(outer, index, graphs, inputs, taken, outs, j, needs, switch)
        outer.bind(o, v)
        results.append(o)
    interp = forward.carrying(inputs)
    if interp is not None:
        # under jax.jvp: each output's tangent by transposing the traced backward cond (itself traced)
        tangents = [interp.tangent(t) if isinstance(t, Tensor) else None for t in inputs]
        vjps = [vjp_graph(b) for b in graphs]
        with interp.suspended():
            for j, o in enumerate(results):
                if o.array.dtype.kind != "f":
                    continue

                def pull(u, j=j):
                    seeds = [u if m == j else Tensor(np.zeros(x.array.shape, x.array.dtype)) for m, x in enumerate(outs)]
                    return _traced_cond(outer, index, vjps, list(inputs) + seeds, taken, None, switch)
                t = forward.transpose(pull, tangents, inputs, o)
                if t is not None:
                    interp.set(o, as_array(t))
    return results


class _CondRule:
    """The autograd Function a traced cond's output is (its backward: a cond of the branches' vjps)."""
    __name__ = "cond"


def _with_cond_backward(outer, index, graphs, inputs, taken, outs, j, needs, switch: bool) -> Tensor:
    vjps: list = []

    def backward(ctx, g):
        if not vjps:
            vjps.extend(vjp_graph(b) for b in graphs)
        seeds = [g if m == j else Tensor(np.zeros(o.array.shape, o.array.dtype)) for m, o in enumerate(outs)]
        # the backward cond goes into the trace running now: the forward's, or one nested in it (jacrev's
        # vmap over the pullback), which reads the forward's values as captured inputs
        here = tracing.active()
        grads = _traced_cond(here if here is not None else outer, index, vjps, list(inputs) + seeds, taken, None,
                             switch)
        return tuple(gr if need and gr.array.dtype.kind == "f" else None for gr, need in zip(grads, needs))
    cls = type("cond", (_CondRule,), {"backward": staticmethod(backward)})
    fresh = Tensor(outs[j].array)
    attach_custom_node(cls, FunctionCtx(needs), tuple(inputs), fresh)
    return fresh


def _emit_cond(outer, index: Array, graphs: list, inputs: list, operands: int | None, switch: bool = False) -> list:
    """The cond node(s) of the enclosing graph: a switch is a chain of two-way conds (the first one's
    attrs say so: the jaxpr prints it as JAX's one cond of all the branches)."""
    g = outer.graph
    values = [outer.value_of(t) for t in inputs]
    idx = outer.value_of(index)

    if len(graphs) == 2 and not switch:
        if idx.producer is not None and idx.producer.kind == CONSTANT:       # a concrete predicate
            pred = g.constant(np.asarray(bool(idx.producer.value)))
        else:
            pred = g.call("ne", idx, 0) if np.dtype(idx.dtype) != np.bool_ else idx
        out = g.cond(pred, _rehomed(g, graphs[1], "then", outer), _rehomed(g, graphs[0], "else", outer), values)
        if operands is not None:
            out[0].producer.attrs["num_operands"] = operands
        return out
    # index k: cond(index <= 0, b0, cond(index - 1 <= 0, b1, ...)), each level a closed graph of (index, inputs)
    out = _switch_chain(g, idx, graphs, values, outer)
    if out and out[0].producer is not None and out[0].producer.kind == COND:
        out[0].producer.attrs["switch"] = len(graphs)
        if operands is not None:
            out[0].producer.attrs["num_operands"] = operands
    return out


def _rehomed(g, sub, name, outer=None):
    """`sub` as a sub-graph of `g`, with ids from g's counter (SSA ids unique across the capture);
    `outer` (the trace g belongs to) learns its values' weak types under their new ids."""
    out = g.subgraph(name)
    args = [out.placeholder(p.out.name, p.out.shape, p.out.dtype) for p in sub.placeholders]
    out.output(inline(out, sub, args))
    _carry_weak(outer, sub, sub.nodes, out.nodes)
    return out


def _carry_weak(outer, sub, old_nodes: list, new_nodes: list) -> None:
    """`sub`'s nodes `old_nodes` were copied, in order, as `new_nodes` (engine.autodiff.inline, which
    copies their sub-graphs the same way): tell `outer` the weak types of the copies' values."""
    weak = _WEAK_OF.get(sub)
    if outer is None or not weak:
        return

    def pairs(olds, news):
        for a, b in zip(olds, news):
            yield from zip(a.outputs, b.outputs)
            for k, s in a.subgraphs.items():
                yield from pairs(s.nodes, b.subgraphs[k].nodes)
    note_nested_weak(outer, pairs(old_nodes, new_nodes), weak)


def _switch_chain(g, idx, graphs: list, values: list, outer) -> list:
    if len(graphs) == 1:
        start = len(g.nodes)
        outs = inline(g, graphs[0], values)
        _carry_weak(outer, graphs[0], [n for n in graphs[0].nodes if n.kind not in (PLACEHOLDER, OUTPUT)],
                    g.nodes[start:])
        return outs
    first = _rehomed(g, graphs[0], "then", outer)
    rest = g.subgraph("else")
    r_idx = rest.placeholder("index", idx.shape, idx.dtype)
    r_vals = [rest.placeholder(f"operand{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    rest.output(_switch_chain(rest, rest.call("sub", r_idx, 1), graphs[1:], r_vals, outer))
    then = g.subgraph("then")
    then.placeholder("index", idx.shape, idx.dtype)
    t_vals = [then.placeholder(f"operand{i}", v.shape, v.dtype) for i, v in enumerate(values)]
    start = len(then.nodes)
    then.output(inline(then, first, t_vals))
    _WEAK_OF[first] = dict(outer.nested_weak) if outer is not None else {}
    _carry_weak(outer, first, [n for n in first.nodes if n.kind not in (PLACEHOLDER, OUTPUT)], then.nodes[start:])
    return g.cond(g.call("le", idx, 0), then, rest, [idx] + values)


def while_loop(cond_fun, body_fun, init_val):
    leaves, tree = tree_flatten(init_val)
    init = [to_array(x) for x in leaves]
    body = _Branch(lambda v: body_fun(v), init, tree, getattr(body_fun, "__name__", "body_fun"), "while_loop", [])
    if body.out_tree != tree or body.types() != [(x.shape, x.dtype) for x in init]:
        raise TypeError(f"body_fun output and input must have identical types, got\n{body.out_tree} "
                        f"{_types_text(body.types())}\nand\n{tree} {_types_text([(x.shape, x.dtype) for x in init])}.")
    test = _Branch(lambda v: cond_fun(v), init, tree, getattr(cond_fun, "__name__", "cond_fun"), "while_loop",
                   list(body.captured))
    if test.types() != [((), np.dtype(np.bool_))]:
        raise TypeError(f"cond_fun must return a boolean scalar, but got output type(s) {_types_text(test.types())}.")
    captured = list(test.captured)
    body.add_inputs(captured)
    if _requires_grad(init + captured) and autograd.is_grad_enabled():     # (not inside a custom_vjp fwd)
        raise ValueError(WHILE_GRAD)
    outer = tracing.active()
    weak = body.weak()          # the carry out is the body's output type (weak only if that is), as in JAX
    if outer is not None and (any(tracing.traced(t) for t in init + captured)):
        if forward.carrying(init + captured) is not None:
            raise UnsupportedError("jax.jvp of a lax.while_loop on traced values inside jax.jit/make_jaxpr is not "
                                   "supported by Dagscope yet: take the jvp outside the jit, or use lax.scan or a "
                                   "fori_loop with static bounds")
        with outer.paused():
            outs = _loop(test.graph, body.graph, init, captured)
        g = outer.graph
        carried = [outer.value_of(t) for t in init + captured]
        body_g = _rehomed(g, body.graph, "body", outer)
        # the body passes the captured values through (a while node carries everything it reads)
        body_g.output(list(body_g.outputs) + list(body_g.inputs[len(init):]))
        values = g.while_loop(_rehomed(g, test.graph, "cond", outer), body_g, carried)
        values[0].producer.attrs["num_carry"] = len(init)    # the rest are the captured values (JAX's consts)
        for o, v in zip(outs, values):
            outer.bind(o, v)
    else:
        outs = _loop(test.graph, body.graph, init, captured)
    return tree_unflatten(tree, [set_weak(as_array(o), w) for o, w in zip(outs, weak)])


def _loop(test_graph, body_graph, init: list, captured: list) -> list:
    carried = list(init)
    with debug.writing(test_graph), debug.writing(body_graph):
        while truth(run_eager(test_graph, carried + captured)[0].array):
            carried = run_eager(body_graph, carried + captured)
    return carried


def fori_loop(lower, upper, body_fun, init_val, *, unroll=None):
    concrete = not (isinstance(lower, Tensor) and tracing.traced(lower)) and \
        not (isinstance(upper, Tensor) and tracing.traced(upper))
    if concrete:
        lo = int(Tensor.item(lower)) if isinstance(lower, Tensor) else int(lower)
        hi = int(Tensor.item(upper)) if isinstance(upper, Tensor) else int(upper)
        if (_traced_once() or _staged_loop(tree_flatten(init_val)[0], body_fun)) and hi > lo:
            # JAX lowers a fori_loop with static bounds to a scan carrying (i, value): reverse-differentiable
            def step(carry, _):
                i, v = carry
                return (jnp.add(i, 1), body_fun(i, v)), None
            # JAX's scan starts the counter at int(lower), a Python int: weakly typed (i + 0.5 stays float32)
            start = set_weak(Array(np.asarray(lo, default_int())), True)
            return scan(step, (start, init_val), None, length=hi - lo)[0][1]
        init_leaves, init_tree = tree_flatten(init_val)
        kinds = [(to_array(x).dtype, is_weak(to_array(x))) for x in init_leaves]
        val = tree_unflatten(init_tree, [to_array(x) for x in init_leaves])
        for i in range(lo, hi):
            val = body_fun(set_weak(Array(np.asarray(i, default_int())), True), val)     # (weak, as in the scan)
            # the carry keeps init_val's dtypes, its weak type the body's output's (JAX's scan carry)
            leaves = [to_array(x) for x in tree_flatten(val)[0]]
            val = tree_unflatten(init_tree, [
                x if x.dtype == d else set_weak(as_array(jnp.astype(x, d)), w) for x, (d, w) in zip(leaves, kinds)])
        return val

    def test(state):
        return jnp.less(state[0], state[1])

    def step(state):
        i, n, v = state
        return (jnp.add(i, 1), n, body_fun(i, v))
    def bound(b):            # converted only when its dtype differs, as JAX's fori_loop does
        b = to_array(b)
        return b if b.dtype == np.dtype(default_int()) else jnp.astype(b, default_int())
    return while_loop(test, step, (bound(lower), bound(upper), init_val))[2]


def _steps(graph, init: list, xs: list, captured: list, n: int, nc: int, ny: int, reverse: bool):
    """A scan's body run op by op over its n steps (backwards when `reverse`): the last carry, and
    each output stacked over the steps in the order of xs."""
    carry, ys = list(init), []
    with debug.writing(graph):
        for k in (range(n - 1, -1, -1) if reverse else range(n)):
            res = run_eager(graph, carry + [x[k] for x in xs] + captured)
            carry, y = res[:nc], res[nc:]
            ys.append(y)
    if reverse:
        ys.reverse()
    return carry, [jnp.stack([to_array(step[j]) for step in ys]) for j in range(ny)]


def scan(f, init, xs=None, length=None, reverse=False, unroll=1, _split_transpose=False):
    x_leaves, x_tree = tree_flatten(xs)
    x_arrays = [to_array(x) for x in x_leaves]
    lengths = {x.shape[0] for x in x_arrays}
    if length is not None:
        lengths.add(int(length))
    if len(lengths) != 1:
        raise ValueError("scan got value with no leading axis to scan over" if not lengths else
                         f"scan got `length` argument of {length} which disagrees with leading axis sizes "
                         f"{sorted(lengths)}." if length is not None else
                         "scan got values with different leading axis sizes: "
                         + ", ".join(str(x.shape[0]) for x in x_arrays) + ".")
    n = lengths.pop()
    if n > 0 and (_traced_once() or _staged_loop(tree_flatten(init)[0] + x_arrays, f)):
        return _emit_scan(f, init, x_arrays, x_tree, n, reverse)
    carry = init
    init_tree = tree_flatten(init)[1]
    ys = []
    steps = range(n - 1, -1, -1) if reverse else range(n)
    for i in steps:
        x = tree_unflatten(x_tree, [a[i] for a in x_arrays]) if x_arrays else None
        carry, y = f(carry, x)
        if tree_flatten(carry)[1] != init_tree:
            raise TypeError(f"scan body function carry input and carry output must have the same pytree structure, "
                            f"but they differ: {init_tree} and {tree_flatten(carry)[1]}")
        ys.append(y)
    if reverse:
        ys.reverse()
    if not ys:
        return carry, None
    stacked = tree_map(lambda *parts: jnp.stack([to_array(p) for p in parts]), *ys)
    return carry, stacked


def _traced_once() -> bool:
    """Outside any trace, is a scan's body traced once and its graph run step by step (JAX's semantics: its
    Python side effects happen once)? Not under jax.jvp, whose tangents a closure would lose (the body's
    graph would hold the closed-over values as constants)."""
    return tracing.active() is None and not tracing.FORWARD


def _staged_loop(leaves: list, fun) -> bool:
    """Is this loop one node of an enclosing trace (a scan primitive in its jaxpr)? Inside a jit or
    make_jaxpr, unless an enclosing jax.grad differentiates it there (then its steps are traced one by
    one, so the backward is traced too)."""
    outer = tracing.active()
    return outer is not None and outer.why in ("jit", "make_jaxpr")


def _differentiated(tensors: list) -> bool:
    """Does a jax.grad or jax.jvp running inside the trace differentiate these values?"""
    return _requires_grad(tensors) or forward.carrying(tensors) is not None


def _emit_scan(f, init, x_arrays: list, x_tree, n: int, reverse: bool):
    """`scan` as one loop node of the enclosing trace: a while over (i, carry, ys, xs, consts) whose body
    reads xs[i], applies f and writes ys[i] (attrs["scan"] says which nodes are that bookkeeping, so the
    jaxpr prints JAX's scan with f's jaxpr); its values computed step by step meanwhile."""
    outer = tracing.active()
    init_leaves, init_tree = tree_flatten(init)
    init_arrays = [to_array(x) for x in init_leaves]
    nc, nx = len(init_arrays), len(x_arrays)
    examples = [Array(x.array[0]) for x in x_arrays]

    def body_fun(*args):
        carry = tree_unflatten(init_tree, list(args[:nc]))
        x = tree_unflatten(x_tree, list(args[nc:])) if nx else None
        new_carry, y = f(carry, x)
        c_leaves, c_tree = tree_flatten(new_carry)
        if c_tree != init_tree:
            raise TypeError(f"scan body function carry input and carry output must have the same pytree structure, "
                            f"but they differ: {init_tree} and {c_tree}")
        body_fun.y_tree = tree_flatten(y)[1]
        return list(c_leaves) + tree_flatten(y)[0]
    body = _Branch(body_fun, init_arrays + examples, None, getattr(f, "__name__", "f"), "scan", [])
    outs = body.outs
    if any(is_weak(x) and o.shape == x.shape and o.dtype != x.dtype for x, o in zip(init_arrays, outs[:nc])):
        # a weakly typed carry the body turns into another dtype (0 becoming a float) starts as that type,
        # and f is traced again, as JAX's scan promotes it (_promote_weak_typed_input)
        init_arrays = [as_array(jnp.astype(x, promote(x, o)[0])) if is_weak(x) and o.dtype != x.dtype else x
                       for x, o in zip(init_arrays, outs[:nc])]
        body = _Branch(body_fun, init_arrays + examples, None, getattr(f, "__name__", "f"), "scan", [])
        outs = body.outs
    carry_types = [(o.shape, o.dtype) for o in outs[:nc]]
    if carry_types != [(x.shape, x.dtype) for x in init_arrays]:
        raise TypeError(f"scan body function carry input and carry output must have equal types, got "
                        f"{_types_text(carry_types)} and {_types_text([(x.shape, x.dtype) for x in init_arrays])}.")
    y_outs = outs[nc:]
    ny, captured = len(y_outs), list(body.captured)
    if outer is None or _differentiated(init_arrays + x_arrays + captured):
        # outside any trace, f traced once (its Python side effects once, as in JAX) and its graph run step
        # by step; differentiated inside the trace: f's graph step by step into the trace, so the backward
        # (or the tangents) is traced with it
        carry, stacked = _steps(body.graph, init_arrays, x_arrays, captured, n, nc, ny, reverse)
        carry_out = [set_weak(as_array(t), w) for t, w in zip(carry, body.weak())]
        stacked = [set_weak(as_array(t), w) for t, w in zip(stacked, body.weak()[nc:])]
        y_tree = getattr(body_fun, "y_tree", None)
        return tree_unflatten(init_tree, carry_out), (tree_unflatten(y_tree, stacked) if ny else None)
    # the values, step by step (the enclosing trace paused: they are the node's, not equations)
    with outer.paused():
        carry, stacked = _steps(body.graph, init_arrays, x_arrays, captured, n, nc, ny, reverse)
    # the node
    g = outer.graph
    i32 = np.dtype(default_int())
    counter = g.constant(np.asarray(0, i32))
    ys_init = [g.call("expand", g.constant(np.zeros((), o.dtype)), shape=(n,) + tuple(o.shape)) for o in y_outs]
    carried = [counter] + [outer.value_of(t) for t in init_arrays] + ys_init + \
        [outer.value_of(x) for x in x_arrays] + [outer.value_of(t) for t in captured]
    specs = [(v.shape, v.dtype) for v in carried]

    def holders(sub):
        return [sub.placeholder(f"s{k}", shape, dtype) for k, (shape, dtype) in enumerate(specs)]
    test = g.subgraph("cond")
    a = holders(test)
    test.output([test.call("lt", a[0], n)])
    loop = g.subgraph("body")
    a = holders(loop)
    i, c_in = a[0], a[1:1 + nc]
    ys_in, xs_in, caps = a[1 + nc:1 + nc + ny], a[1 + nc + ny:1 + nc + ny + nx], a[1 + nc + ny + nx:]
    first = len(loop.nodes)
    at = loop.call("sub", n - 1, i) if reverse else i
    x_now = [loop.call("index", x, at, positions=(0,)) for x in xs_in]
    pre = len(loop.nodes) - first                      # the bookkeeping before f's nodes, and after them
    f_outs = inline(loop, body.graph, c_in + x_now + caps)
    last = len(loop.nodes)
    _carry_weak(outer, body.graph, [n for n in body.graph.nodes if n.kind not in (PLACEHOLDER, OUTPUT)],
                loop.nodes[first + pre:last])
    ys_out = [loop.call("index_put", buf, y, at, positions=(0,), accumulate=False) for buf, y in zip(ys_in, f_outs[nc:])]
    loop.output([loop.call("add", i, 1)] + f_outs[:nc] + ys_out + xs_in + caps)
    post = len(loop.nodes) - last - 1                  # (not the output node)
    values = g.while_loop(test, loop, carried)
    values[0].producer.attrs["scan"] = {"length": n, "reverse": bool(reverse), "num_consts": len(captured),
                                        "num_carry": nc, "num_xs": nx, "num_ys": ny, "pre": pre, "post": post}
    # the carry out and ys are of the body's output types (a carry started weak may come out strong), as in JAX
    carry_out = [set_weak(as_array(t), w) for t, w in zip(carry, body.weak())]
    stacked = [set_weak(as_array(t), w) for t, w in zip(stacked, body.weak()[nc:])]
    for t, v in zip(carry_out + stacked, values[1:1 + nc + ny]):
        outer.bind(t, v)
    y_tree = getattr(body_fun, "y_tree", None)
    ys_tree = tree_unflatten(y_tree, stacked) if y_tree is not None and ny else None
    return tree_unflatten(init_tree, carry_out), ys_tree


def map_(f, xs):
    """`lax.map`: f applied to each slice along the leading axis, stacked (lax.py names it `map`)."""
    return scan(lambda c, x: (c, f(x)), None, xs)[1]
