"""`jax.vmap` as a transformation of the traced graph, as JAX's batching interpreter is.

`vmap(f)(xs)` traces f once on one example of each mapped argument (tracing.Trace, so a Python read
of a batched value is JAX's error, and an enclosing trace is paused), then interprets that graph
with every value held as (array, batch dim): an op whose inputs are all unbatched runs as it is;
otherwise its batching rule (RULES, keyed by op as engine/ops/registry.py keys its ops; the
elementwise and reduction families share one rule each) runs the batched op on the whole batch.
The ops run on the engine's Tensors, so an enclosing jit or make_jaxpr records the batched
equations (one graph: `make_jaxpr(vmap(f))` prints what JAX prints for the common ops) and an
enclosing grad differentiates through them. The batch dim stays where JAX's rules keep it
(in_axes=1 with elementwise ops stays at 1) and is moved to out_axes at the end. A vmapped
function's first call in a run is recorded as a static graph of capture kind "vmap": the batched
graph, with its jaxpr and the per-example jaxpr beside it.

An op without a rule runs once per example and its results are stacked (one node per example in
the graph, the values exact). A cond becomes the branch taken when its predicate is a Python-readable
unbatched value, else both branches and a `where` (JAX's select). A function with a while loop
inside (lax.while_loop; fori_loop and scan are traced unrolled) runs once per example whole.
"""
from __future__ import annotations

import functools

import numpy as np

from engine.capture import trail
from engine.compat.jax import numpy as jnp
from engine.compat.jax import debug, tracing
from engine.compat.jax.array import Array, as_array, is_weak, set_weak, to_array, weak_types
from engine.compat.jax.jaxpr import NUMPY_INTS, RANK_LIFT, format_jaxpr
from engine.compat.jax.tree_util import _flatten_up_to, tree_flatten, tree_structure, tree_unflatten
from engine.hooks import Message
from engine.ir.graph import CALL, COND, CONSTANT, WHILE
from engine.ir.interpreter import truth
from engine.ops.index import index_shape
from engine.ops.registry import ELEMENTWISE, OPS
from engine.tensor import Tensor, apply

RULES: dict = {}            # op name -> rule(node, args [(tensor, bdim | None)], size) -> (tensor, bdim)


def rule(*names):
    def register(fn):
        for n in names:
            RULES[n] = fn
        return fn
    return register


# ---- helpers --------------------------------------------------------------------------------------

def _ndim(t) -> int:
    return t.array.ndim


def to_front(t, d: int):
    """The batch dim moved to axis 0 (JAX's moveaxis: a transpose)."""
    if d == 0:
        return t
    perm = (d,) + tuple(i for i in range(_ndim(t)) if i != d)
    return apply("permute", t, dims=perm)


def _broadcast_batch(t, size: int):
    """An unbatched value given a leading batch axis of `size` (JAX's bdim_at_front of an unmapped one)."""
    return apply("expand", apply("unsqueeze", t, dim=0), shape=(size,) + tuple(t.array.shape))


def _front_all(args, size):
    return [to_front(t, d) if d is not None else _broadcast_batch(t, size) for t, d in args]


def _dims(dim, ndim: int) -> tuple:
    if dim is None:
        return tuple(range(ndim))
    return tuple(sorted(int(a) % max(ndim, 1) for a in ((dim,) if isinstance(dim, int) else dim)))


def _numpy_axes(t):
    """JAX's batching rules compute axes with numpy: its jaxpr prints them `np.int64(1)` (jaxpr.py)."""
    _show_as(t, (NUMPY_INTS, None))
    return t


def _per_example_node(node, args, size):
    """No rule: the op once per example, the results stacked along a new axis 0."""
    outs = []
    for i in range(size):
        ins = [t if d is None else apply("select", t, dim=d, index=i) for t, d in args]
        outs.append(apply(node.op, *ins, **node.attrs))
    return apply("stack", *outs, dim=0), 0


# ---- rules ----------------------------------------------------------------------------------------

@rule("debug_print", "debug_callback")
def _debug_effect(node, args, size):
    """JAX's rule for its debug callbacks: the batch unrolled, one print or call per example, in order
    (their tokens are no value: the first stands for all)."""
    tokens = [apply(node.op, *(t if d is None else apply("select", t, dim=d, index=i) for t, d in args),
                    **node.attrs) for i in range(size)]
    return tokens[0], None


def _elementwise(node, args, size):
    """JAX's broadcast_batcher: operands of one shape batched along one dim run as they are; otherwise
    the batched ones get their batch dim in front and the per-example rank of the result."""
    batched = [(t, d) for t, d in args if d is not None]
    t0, d0 = batched[0]
    if all(d == d0 and t.array.shape == t0.array.shape for t, d in args if _ndim(t) > 0):
        return apply(node.op, *(t for t, _ in args), **node.attrs), d0
    rank = node.out.ndim
    ins = []
    fronted = [(to_front(t, d), d) if d is not None else (t, d) for t, d in args]     # all moved, then lifted
    for t, d in fronted:
        if d is not None:
            if _ndim(t) == 1:             # a batched scalar: size-1 dims appended (JAX's broadcast_in_dim)
                t = apply("reshape", t, shape=(size,) + (1,) * rank)
                _show_as(t, (RANK_LIFT, None))
            elif _ndim(t) - 1 < rank:
                t = apply("reshape", t, shape=(size,) + (1,) * (rank - _ndim(t) + 1) + tuple(t.array.shape[1:]))
        ins.append(t)
    return _numpy_axes(apply(node.op, *ins, **node.attrs)), 0


_TUPLE_REDUCTIONS = {"sum", "mean", "amax", "amin", "var", "std", "logsumexp"}
_ONE_DIM_REDUCTIONS = {"max", "min", "argmax", "argmin", "prod", "norm"}


@rule(*_TUPLE_REDUCTIONS, *_ONE_DIM_REDUCTIONS)
def _reduction(node, args, size):
    """JAX's reducer batcher: the per-example axes shifted past the batch dim, which stays put."""
    t, d = args[0]
    attrs = dict(node.attrs)
    dim, keep = attrs.get("dim"), attrs.get("keepdim", False)
    ex_ndim = _ndim(t) - 1
    if dim is None and node.op in _ONE_DIM_REDUCTIONS:
        # over every element: one axis of the flattened example
        flat = apply("reshape", to_front(t, d), shape=(size, -1))
        out = apply(node.op, flat, **{**attrs, "dim": 1, "keepdim": False})
        if keep:
            out = apply("reshape", out, shape=(size,) + (1,) * ex_ndim)
        return out, 0
    axes = _dims(dim, ex_ndim)
    if node.op in _ONE_DIM_REDUCTIONS and len(axes) != 1:
        return _per_example_node(node, args, size)
    moved = tuple(a if a < d else a + 1 for a in axes)
    attrs["dim"] = moved[0] if isinstance(dim, int) or node.op in _ONE_DIM_REDUCTIONS else moved
    out_d = d if keep else d - sum(a < d for a in axes)
    return _numpy_axes(apply(node.op, t, **attrs)), out_d


def _front_dim(name: str = "dim", rank_extra: int = 0):
    """A one-input op with an axis attribute: the batch dim in front, the axis one further."""
    def batched(node, args, size):
        (t, d), = args
        t = to_front(t, d)
        attrs = dict(node.attrs)
        value = attrs.get(name)
        ex_ndim = _ndim(t) - 1 + rank_extra
        if value is None:
            return _per_example_node(node, args, size)
        if isinstance(value, (tuple, list)):
            attrs[name] = type(value)(int(a) % max(ex_ndim, 1) + 1 for a in value)
        else:
            attrs[name] = int(value) % max(ex_ndim, 1) + 1
        return apply(node.op, t, **attrs), 0
    return batched


for _op in ("softmax", "log_softmax", "cumsum", "cumprod", "squeeze", "select"):
    RULES[_op] = _front_dim()
RULES["slice"] = _front_dim()
RULES["unsqueeze"] = _front_dim(rank_extra=1)
RULES["flip"] = _front_dim("dims")


@rule("roll")
def _roll(node, args, size):
    if node.attrs.get("dims") is None:
        return _per_example_node(node, args, size)
    return _front_dim("dims")(node, args, size)


@rule("reshape")
def _reshape(node, args, size):
    (t, d), = args
    attrs = dict(node.attrs)
    attrs["shape"] = (size,) + tuple(node.out.shape)
    return apply("reshape", to_front(t, d), **attrs), 0


@rule("expand")
def _expand(node, args, size):
    (t, d), = args
    t = to_front(t, d)
    target = tuple(node.out.shape)
    lead = len(target) - (_ndim(t) - 1)
    if lead:
        t = apply("reshape", t, shape=(size,) + (1,) * lead + tuple(t.array.shape[1:]))
    return apply("expand", t, shape=(size,) + target), 0


@rule("permute")
def _permute(node, args, size):
    (t, d), = args
    n = _ndim(t) - 1
    dims = tuple(int(a) % max(n, 1) + 1 for a in node.attrs["dims"])
    return apply("permute", to_front(t, d), dims=(0,) + dims), 0


@rule("transpose")
def _transpose(node, args, size):
    (t, d), = args
    n = max(_ndim(t) - 1, 1)
    attrs = dict(node.attrs)
    attrs["dim0"], attrs["dim1"] = attrs["dim0"] % n + 1, attrs["dim1"] % n + 1
    return apply("transpose", to_front(t, d), **attrs), 0


@rule("cat", "stack")
def _join(node, args, size):
    n = node.out.ndim if node.op == "cat" else node.out.ndim
    attrs = dict(node.attrs)
    attrs["dim"] = int(attrs["dim"]) % max(n, 1) + 1
    return apply(node.op, *_front_all(args, size), **attrs), 0


@rule("sum_to_size")
def _sum_to_size(node, args, size):
    (t, d), = args
    t = to_front(t, d)
    target = tuple(node.attrs["shape"])
    lead = (_ndim(t) - 1) - len(target)
    out = apply("sum_to_size", t, shape=(size,) + (1,) * lead + target)
    if lead:
        out = apply("reshape", out, shape=(size,) + target)
    return out, 0


@rule("select_backward", "slice_backward")
def _placed_back(node, args, size):
    (t, d), = args
    attrs = dict(node.attrs)
    attrs["shape"] = (size,) + tuple(attrs["shape"])
    attrs["dim"] = int(attrs["dim"]) % len(node.out.shape) + 1
    return apply(node.op, to_front(t, d), **attrs), 0


def _adjacent(positions) -> bool:
    ordered = sorted(positions)
    return ordered == list(range(ordered[0], ordered[-1] + 1))


@rule("index", "index_backward")
def _index(node, args, size):
    """x[i, j] with unbatched integer indices at adjacent positions: the same indices one axis further."""
    (t, d), *indices = args
    positions = node.attrs["positions"]
    if node.op == "index" and _adjacent(positions) and any(dd is not None for _, dd in indices):
        return _batched_indices(node, args, size)
    if any(dd is not None for _, dd in indices) or not _adjacent(positions):
        return _per_example_node(node, args, size)
    attrs = dict(node.attrs, positions=tuple(p + 1 for p in positions))
    if "shape" in attrs:
        attrs["shape"] = (size,) + tuple(attrs["shape"])
    return apply(node.op, to_front(t, d), *(i for i, _ in indices), **attrs), 0


def _batched_indices(node, args, size):
    """x[i] with a batched integer index (JAX's gather with a batched index): one advanced index over
    the whole batch. Batched indices get their batch dim in front and the per-example rank of the
    broadcast index; a batched x is indexed along its batch axis too, by arange(size), so example b reads
    x[b][i[b]]. numpy puts the index block where the indexed axes were (x unbatched: the batch dim lands
    at the first indexed axis) or, for x batched and indexed further in, first (then moved back)."""
    (t, d), *indices = args
    positions = tuple(node.attrs["positions"])
    if any(i.array.dtype.kind not in "iu" for i, _ in indices):
        return _per_example_node(node, args, size)
    rank = max((_ndim(i) - (0 if dd is None else 1)) for i, dd in indices)
    fronted = []
    for i, dd in indices:
        if dd is None:
            fronted.append(i)
            continue
        i = to_front(i, dd)
        if _ndim(i) - 1 < rank:
            i = apply("reshape", i, shape=(size,) + (1,) * (rank - (_ndim(i) - 1)) + tuple(i.array.shape[1:]))
        fronted.append(i)
    attrs = dict(node.attrs)
    first = min(positions)
    if d is None:
        return apply("index", t, *fronted, **dict(attrs, positions=positions)), first
    batch = Tensor(np.arange(size).reshape((size,) + (1,) * rank))
    out = apply("index", to_front(t, d), batch, *fronted, **dict(attrs, positions=(0,) + tuple(p + 1 for p in positions)))
    if first == 0:
        return out, 0
    # the index block (batch + rank dims) came first; per example it sits after x's first `first` axes
    n = _ndim(out)
    block = list(range(1, 1 + rank))
    before = list(range(1 + rank, 1 + rank + first))
    after = list(range(1 + rank + first, n))
    return apply("permute", out, dims=tuple([0] + before + block + after)), 0


@rule("index_put")
def _index_put(node, args, size):
    """x.at[i].set(v) with unbatched indices at adjacent positions: x (and v, rank-aligned to the
    indexed region) with the batch axis in front, the indices one axis further."""
    (x, dx), (v, dv), *indices = args
    positions = node.attrs["positions"]
    if any(dd is not None for _, dd in indices) or not _adjacent(positions):
        return _per_example_node(node, args, size)
    x = to_front(x, dx) if dx is not None else _broadcast_batch(x, size)
    if dv is not None:
        region = index_shape(tuple(node.inputs[0].shape), [i.shape for i in node.inputs[2:]], positions)
        v = to_front(v, dv)
        lead = len(region) - (_ndim(v) - 1)
        if lead > 0:
            v = apply("reshape", v, shape=(size,) + (1,) * lead + tuple(v.array.shape[1:]))
    attrs = dict(node.attrs, positions=tuple(p + 1 for p in positions))
    return apply("index_put", x, v, *(i for i, _ in indices), **attrs), 0


@rule("pad")
def _pad(node, args, size):
    """PyTorch-style pad widths name the last dims only: a batch axis in front is left alone."""
    (t, d), = args
    return apply("pad", to_front(t, d), **node.attrs), 0


_LETTERS = "abcdefghijklmnopqrstuvwxy"


@rule("matmul")
def _matmul(node, args, size):
    """matmul as one einsum in dot_general's form (jaxpr.py prints it as JAX's dot_general): the
    batch letter is a batch dimension when both operands are batched (first in the result), else a
    free dimension of its operand, kept where dot_general puts it."""
    (a, da), (b, db) = args
    na, nb = node.inputs[0].ndim, node.inputs[1].ndim
    if na > 2 or nb > 2 or na == 0 or nb == 0:
        return _per_example_node(node, args, size)
    sa = "ik"[2 - na:] if na == 2 else "k"
    sb = "kj"[:nb]
    out = ("i" if na == 2 else "") + ("j" if nb == 2 else "")
    z = "z"
    if da is not None:
        sa = sa[:da] + z + sa[da:]
    if db is not None:
        sb = sb[:db] + z + sb[db:]
    if da is not None and db is not None:
        out_s, out_d = z + out, 0
    else:
        free_a = "".join(c for c in sa if c != "k")
        free_b = "".join(c for c in sb if c != "k")
        out_s = free_a + free_b
        out_d = out_s.index(z)
    return apply("einsum", a, b, equation=f"{sa},{sb}->{out_s}"), out_d


@rule("einsum")
def _einsum(node, args, size):
    eq = node.attrs["equation"].replace(" ", "")
    if "..." in eq or "->" not in eq:
        return _per_example_node(node, args, size)
    ins, out = eq.split("->")
    subs = ins.split(",")
    z = next(c for c in _LETTERS[::-1] + "ABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq)
    new = []
    for s, (t, d) in zip(subs, args):
        new.append(s if d is None else s[:d] + z + s[d:])
    return apply("einsum", *(t for t, _ in args), equation=f"{','.join(new)}->{z}{out}"), 0


def _rule_for(op: str):
    found = RULES.get(op)
    if found is not None:
        return found
    opdef = OPS.get(op)
    if opdef is not None and opdef.kind == ELEMENTWISE:
        return _elementwise
    return _per_example_node


# ---- the interpreter ------------------------------------------------------------------------------

def batch_graph(graph, inputs: dict, size: int, shown: dict) -> list:
    """Run the per-example `graph` on batched `inputs` (placeholder id -> (tensor, bdim | None)):
    (tensor, bdim) per output."""
    env = dict(inputs)
    for n in graph.nodes:
        if n.kind == CONSTANT:
            env[n.out.id] = (Array(n.value), None)
        elif n.kind == CALL:
            args = [env[v.id] for v in n.inputs]
            if all(d is None for _, d in args):
                out = apply(n.op, *(t for t, _ in args), **n.attrs), None
            else:
                out = _rule_for(n.op)(n, args, size)
            env[n.out.id] = out
            if n.out.id in shown:
                _show_as(out[0], shown[n.out.id])
        elif n.kind == COND:
            for v, pair in zip(n.outputs, _cond(n, [env[v.id] for v in n.inputs], size, shown)):
                env[v.id] = pair
    return [env[v.id] for v in graph.outputs]


def _cond(node, args, size: int, shown: dict) -> list:
    """A cond whose predicate is one Python can read takes its branch, batched; otherwise (a batched
    predicate, or one an enclosing trace holds) both branches run batched and `where` picks per
    example, as JAX's batching of cond with a batched predicate does (a select)."""
    (pred, pd), operands = args[0], args[1:]

    def branch(name):
        sub = node.subgraphs[name]
        return batch_graph(sub, {v.id: pair for v, pair in zip(sub.inputs, operands)}, size, shown)
    if pd is None and not tracing.traced(pred):
        return branch("then" if truth(pred.array) else "else")
    taken, other = branch("then"), branch("else")
    outs = []
    for (t, dt), (e, de) in zip(taken, other):
        if pd is None and dt is None and de is None:
            outs.append((apply("where", pred, t, e), None))
            continue
        t = to_front(t, dt) if dt is not None else _broadcast_batch(t, size)
        e = to_front(e, de) if de is not None else _broadcast_batch(e, size)
        p = pred
        if pd is not None:
            p = apply("reshape", to_front(pred, pd), shape=(size,) + (1,) * (_ndim(t) - 1))
        outs.append((apply("where", p, t, e), 0))
    return outs


def _show_as(t, what) -> None:
    """The enclosing trace prints this batched op as the per-example one was printed (a `div`)."""
    trace = tracing.active()
    if trace is not None and id(t) in trace.values:
        trace.shown_as[trace.values[id(t)].id] = what


# ---- vmap ---------------------------------------------------------------------------------------

def _axes_for(tree, spec) -> list:
    """The mapped axis (or None) of each leaf of `tree`, from a pytree-prefix spec."""
    leaves, treedef = tree_flatten(tree)
    if spec is None or isinstance(spec, int):
        return [spec] * len(leaves)
    out = []
    sub = _flatten_up_to(tree_structure(spec, is_leaf=lambda x: x is None or isinstance(x, int)), tree)
    specs = tree_flatten(spec, is_leaf=lambda x: x is None or isinstance(x, int))[0]
    for s, t in zip(specs, sub):
        out += [s] * len(tree_flatten(t)[0])
    return out


def _is_array_leaf(x) -> bool:
    return isinstance(x, (Tensor, np.ndarray, np.generic, bool, int, float, complex))


def vmap(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, spmd_axis_name=None):
    return batched_function(fun, in_axes, out_axes, axis_name, axis_size, shown=True)


def batched_function(fun, in_axes=0, out_axes=0, axis_name=None, axis_size=None, shown: bool = False):
    """vmap(fun); `shown`: its first call's batched graph is published as the page's vmap view (not
    for a vmap a transformation makes, jacfwd's)."""
    if not callable(fun):
        raise TypeError(f"vmap requires a callable argument, got {fun!r}")

    @functools.wraps(fun)
    def vmap_f(*args, **kwargs):
        if kwargs:
            # JAX maps keyword arguments over their axis 0, whatever in_axes says: they become one more
            # (dict) positional argument mapped at 0
            names = list(kwargs)
            specs_in = in_axes if type(in_axes) in (tuple, list) else (in_axes,) * len(args)
            if len(specs_in) != len(args):
                raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                                 f"positional arguments passed to the function, but got len(in_axes)={len(specs_in)}, "
                                 f"len(args)={len(args)}")

            @functools.wraps(fun)
            def positional(*a):
                return fun(*a[:-1], **{k: a[-1][k] for k in names})
            return batched_function(positional, tuple(specs_in) + (0,), out_axes, axis_name, axis_size,
                                    shown)(*args, kwargs)
        if type(in_axes) in (tuple, list) and len(in_axes) != len(args):
            raise ValueError(f"vmap in_axes must be an int, None, or a tuple of entries corresponding to the "
                             f"positional arguments passed to the function, but got len(in_axes)={len(in_axes)}, "
                             f"len(args)={len(args)}")
        specs = in_axes if type(in_axes) in (tuple, list) else [in_axes] * len(args)
        flat, axes, trees = [], [], []
        for a, s in zip(args, specs):
            leaves, tree = tree_flatten(a)
            leaf_axes = _axes_for(a, s)
            for x, ax in zip(leaves, leaf_axes):
                if ax is not None:
                    x = to_array(x)
                    if x.ndim == 0:
                        raise ValueError(f"vmap was requested to map its argument along axis {ax}, which implies "
                                         f"that its rank should be at least {ax + 1}, but is only 0 (its shape is ())")
                    ax = ax % x.ndim
                flat.append(x)
                axes.append(ax)
            trees.append((tree, len(leaves)))
        sizes = {}
        for x, ax in zip(flat, axes):
            if ax is not None:
                sizes.setdefault(x.shape[ax], []).append(x.shape)
        if not sizes:
            if axis_size is None:
                raise ValueError("vmap must have at least one non-None value in in_axes")
            n = axis_size
        elif len(sizes) > 1:
            raise ValueError("vmap got inconsistent sizes for array axes to be mapped:\n" + "\n".join(
                f"  * some axes have size {s}" for s in sizes))
        else:
            n = next(iter(sizes))
        if n == 0:
            raise ValueError("vmap over an axis of size 0 is not supported by Dagscope")
        per_example = _trace_example(fun, flat, axes, trees, kwargs)
        if per_example is None:
            return _loop(fun, flat, axes, trees, kwargs, n, out_axes)
        graph, trace, out_tree, out_weak, holders = per_example
        inputs = {vid: (to_array(flat[i]), axes[i]) if isinstance(i, int) else (i[1], None)
                  for vid, i in holders.items()}
        out_specs = _out_axes(out_tree, len(out_weak), out_axes)

        # run now (no trace around it), its jax.debug.print / callback nodes print or call as they run,
        # once per example (_debug_effect); inside a jit they are the jit's nodes, run when it runs
        writing = debug.writing(graph)

        def batched():
            with writing:
                results = batch_graph(graph, inputs, n, trace.shown_as)
            return [set_weak(as_array(_to_out_axis(t, d, ax, n)), weak)
                    for (t, d), ax, weak in zip(results, out_specs, out_weak)]
        if shown and len(recorded) < MAX_RECORDED and trail.recording() and tracing.active() is None and \
                tracing.GRAD_LEVEL[0] == 0:
            recorded.append(n)
            outs = _record(fun, n, inputs, batched, graph, trace)
        else:
            outs = batched()
        return tree_unflatten(out_tree, outs)
    recorded: list = []
    return vmap_f


MAX_RECORDED = 1        # per vmapped function: its first call's batched graph is shown (the page's "vmap")


def _record(fun, size: int, inputs: dict, batched, example_graph, example_trace) -> list:
    """Run `batched` inside a trace of its own, so the batched equations are one graph, and publish
    it as a static graph of capture kind "vmap" with its jaxpr and the per-example one beside it."""
    name = getattr(fun, "__name__", "fun")
    trace = tracing.Trace(f"vmap({name})", "vmap")
    for t, _ in inputs.values():
        if id(t) not in trace.values:
            trace.bind(t, trace.graph.placeholder(f"arg{len(trace.graph.inputs)}", t.array.shape, t.array.dtype))
    with trace:
        outs = batched()
        values = [trace.value_of(o) for o in outs]
    trace.graph.current_line = trace.graph.current_module = None
    trace.graph.output(values)
    texts = []
    for g, tr in ((trace.graph, trace), (example_graph, example_trace)):
        try:
            texts.append(format_jaxpr(g, weak_types(tr), tr.shown_as))
        except Exception as exc:  # noqa: BLE001 - the jaxpr is shown beside the graph; the graph still is
            texts.append(f"(no jaxpr text: {exc})")
    title = Message("title.vmap", f"jax.vmap {name}: a batch of {size}", name=name, n=size)
    trail.graph_captured(trace.graph, "vmap", title, target=fun,
                         values=dict(trace.arrays), backward=False,
                         extra={"function": name, "batch_size": size, "jaxpr": texts[0],
                                "unbatched_jaxpr": texts[1]})
    return outs


def _trace_example(fun, flat, axes, trees, kwargs):
    """f traced on one example: (graph, trace, out tree, out weak types, its placeholders: id -> the
    leaf's index, or ("read", tensor) for a value it closes over), or None when its graph has control
    flow (then it runs per example)."""
    parent = tracing.active()
    trace = tracing.Trace(getattr(fun, "__name__", "fun"), "vmap", parent=parent)
    g = trace.graph
    stand_ins, holders = [], {}
    for i, (x, ax) in enumerate(zip(flat, axes)):
        if not _is_array_leaf(x):
            stand_ins.append(x)
            continue
        a = to_array(x)
        example = a.array if ax is None else np.take(a.array, 0, axis=ax)
        t = set_weak(Array(np.array(example)), is_weak(a))
        v = g.placeholder(f"arg{i}", example.shape, example.dtype)
        trace.bind(t, v)
        holders[v.id] = i
        stand_ins.append(t)
    call_args = _unflatten_args(stand_ins, trees)
    with trace:
        out = fun(*call_args, **kwargs)
        out_leaves, out_tree = tree_flatten(out)
        out_arrays = [to_array(o) for o in out_leaves]
        values = [trace.value_of(o) for o in out_arrays]
    g.output(values)
    if any(n.kind == WHILE for n in g.nodes) or any(_has_while(sub) for n in g.nodes for sub in n.subgraphs.values()):
        return None
    for t in list(trace.captured) + list(trace.lifted):
        if not any(t is r for r in trace.reads.values()):      # (lifted by the engine's tracer)
            holders[trace.values[id(t)].id] = ("read", t)
    for vid, t in trace.reads.items():
        holders[vid] = ("read", t)
    return g, trace, out_tree, [is_weak(o) for o in out_arrays], holders


def _has_while(graph) -> bool:
    return any(n.kind == WHILE or any(_has_while(s) for s in n.subgraphs.values()) for n in graph.nodes)


def _unflatten_args(leaves, trees) -> list:
    out, at = [], 0
    for tree, count in trees:
        out.append(tree_unflatten(tree, leaves[at:at + count]))
        at += count
    return out


def _out_axes(out_tree, count: int, spec) -> list:
    return _axes_for(tree_unflatten(out_tree, [0] * count), spec)


def _to_out_axis(t, d, ax, size: int):
    if ax is None:
        if d is not None:
            raise ValueError("vmap has mapped output but out_axes is None")
        return t
    if d is None:
        t, d = _broadcast_batch(t, size), 0
    ax = ax % _ndim(t)
    if ax == d:
        return t
    perm = [i for i in range(_ndim(t)) if i != d]
    perm.insert(ax, d)
    return apply("permute", t, dims=tuple(perm))


def _loop(fun, flat, axes, trees, kwargs, n, out_axes):
    """f once per example, the results stacked (a function with lax control flow inside)."""
    results = []
    for i in range(n):
        picked = [x if ax is None else _take(to_array(x), i, ax) for x, ax in zip(flat, axes)]
        results.append(fun(*_unflatten_args(picked, trees), **kwargs))
    out_tree = tree_flatten(results[0])[1]
    out_specs = _axes_for(results[0], out_axes)
    per_result = [tree_flatten(r)[0] for r in results]
    stacked = []
    for m, ax in enumerate(out_specs):
        column = [to_array(r[m]) for r in per_result]
        stacked.append(column[0] if ax is None else jnp.stack(column, axis=ax))
    return tree_unflatten(out_tree, stacked)


def _take(x: Array, i: int, axis: int) -> Array:
    key = [slice(None)] * x.ndim
    key[axis % x.ndim] = i
    return x[tuple(key)]
