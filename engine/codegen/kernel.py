"""Lowering: one fusion group of a Graph -> a `Kernel`, the loop nest that `c_render` prints.

A kernel iterates over one index space (the broadcast shape of its elementwise ops, or the input
shape of its trailing reduction). Every operand is addressed by element strides over that space
(0 on broadcast dims), so broadcasting, transposed views and expands inside a group cost no
copies. Loops are reordered (kept dims outside, reduced dims inside) and adjacent dims are merged
when every operand walks them contiguously, so a contiguous elementwise chain is one flat loop.
softmax/log_softmax lower to a kernel of their own: a reduction along `dim` written back over it.
"""
from __future__ import annotations

import linecache
from dataclasses import dataclass, field

import numpy as np

from engine.ir.graph import CALL, CONSTANT, Graph, Node
from engine.ops.registry import ELEMENTWISE, MOVEMENT, OPS, REDUCE
from engine.ops.shapes import normalize_dims, sum_to_axes
from engine.user_code import USER_FILENAME

C_DTYPES = {"float32", "float64", "bool", "int8", "uint8", "int16", "int32", "int64"}


RESHAPE_LIKE = {"reshape", "squeeze", "unsqueeze"}


class NotLowerable(Exception):
    """This group cannot be one C loop nest (the executor then runs its nodes one by one)."""


@dataclass(frozen=True)
class Literal:
    """A size-1 constant inlined into the source."""
    value: object
    dtype: np.dtype


@dataclass
class Load:
    var: str                     # C variable holding the loaded element, e.g. "a0"
    arg: int                     # index into Kernel.inputs
    strides: tuple[int, ...]     # element strides over Kernel.dims


@dataclass
class Step:
    var: str                     # C variable of the result, e.g. "v3"
    node_id: str
    op: str
    args: list                   # variable names (str) or Literals
    arg_dtypes: list[np.dtype]
    attrs: dict
    dtype: np.dtype
    comment: str


@dataclass
class Store:
    arg: int                     # index into Kernel.outputs
    ref: str                     # variable stored
    strides: tuple[int, ...]


@dataclass
class Reduction:
    node_id: str
    op: str
    ref: object                  # variable (or Literal) reduced
    in_dtype: np.dtype
    dtype: np.dtype
    attrs: dict
    count: int                   # elements reduced into each output element
    out_arg: int
    out_strides: tuple[int, ...] # 0 on reduced dims
    comment: str


@dataclass
class Arg:
    value_id: str
    dtype: np.dtype
    shape: tuple[int, ...]
    strides: tuple[int, ...] | None = None   # element strides of the buffer (None: contiguous)


@dataclass
class Kernel:
    name: str
    dims: tuple[int, ...]                     # the loop nest, outermost first
    reduced: tuple[bool, ...]                 # which loop dims a reduction sums over (innermost)
    inputs: list[Arg]
    outputs: list[Arg]
    loads: list[Load] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    stores: list[Store] = field(default_factory=list)
    reduction: Reduction | None = None
    # a sum over outer dims (a bias gradient: sum over the batch) accumulates straight into its
    # output row, loops in memory order, so the inner kept dim vectorizes; otherwise reduced
    # dims go innermost into a register accumulator
    accumulate_in_output: bool = False
    node_ids: list[str] = field(default_factory=list)
    # a hand-lowered library op (library_kernels.py): its op name, attrs, input strides, comment
    library: str | None = None
    library_attrs: dict = field(default_factory=dict)
    library_strides: list = field(default_factory=list)
    library_comment: str = ""


def contiguous_strides(shape) -> tuple[int, ...]:
    strides, acc = [], 1
    for s in reversed(tuple(shape)):
        strides.append(acc)
        acc *= max(int(s), 1)
    return tuple(reversed(strides))


def describe(node: Node) -> str:
    """`%5 = tanh(%4)  | line 3: y = torch.tanh(x)` — the comment a generated line carries."""
    args = ", ".join(v.id for v in node.inputs)
    attrs = ", ".join(f"{k}={v!r}" for k, v in node.attrs.items())
    text = f"{node.id} = {node.op}({args}{', ' + attrs if attrs else ''})"
    if node.source_line:
        # only the user's own lines: a node captured inside a library module carries a line
        # number of that module's file, which would point at the wrong line of the user's code
        src = linecache.getline(USER_FILENAME, node.source_line).strip()
        if src:
            text += f"  | line {node.source_line}: {src}"
    return text.replace("*/", "* /")


def _broadcast_into(space, shape, strides) -> tuple[int, ...]:
    lead = len(space) - len(shape)
    if lead < 0:
        raise NotLowerable(f"shape {shape} does not broadcast into {space}")
    return tuple(0 if d < lead or shape[d - lead] == 1 else strides[d - lead] for d in range(len(space)))


def view_strides(node: Node, shape, strides):
    """Strides of a movement op's result, viewed over its source; None when not a pure re-index."""
    out_shape = tuple(node.out.shape)
    if node.op == "expand":
        return _broadcast_into(out_shape, shape, strides)
    if node.op in ("permute", "transpose"):
        nd = len(shape)
        if node.op == "permute":
            dims = [d % max(nd, 1) for d in node.attrs["dims"]]
        else:
            dims = list(range(nd))
            a, b = node.attrs["dim0"] % nd, node.attrs["dim1"] % nd
            dims[a], dims[b] = dims[b], dims[a]
        return tuple(strides[d] for d in dims)
    if node.op not in RESHAPE_LIKE:          # slice/select/cat/stack move data or offsets
        return None
    # a contiguous source re-strides freely; otherwise only size-1 dims may come and go.
    if tuple(strides) == contiguous_strides(shape):
        return contiguous_strides(out_shape)
    src = [(s, st) for s, st in zip(shape, strides) if s != 1]
    if [s for s, _ in src] != [s for s in out_shape if s != 1]:
        return None
    it = iter(st for _, st in src)
    return tuple(0 if s == 1 else next(it) for s in out_shape)


def reduction_axes(node: Node) -> tuple[int, ...]:
    in_shape = tuple(node.inputs[0].shape)
    if node.op == "sum_to_size":
        return tuple(sum_to_axes(in_shape, tuple(node.attrs["shape"])))
    axes = normalize_dims(node.attrs.get("dim"), len(in_shape))
    return tuple(range(len(in_shape))) if axes is None else axes


def lower(graph: Graph, group, input_strides: dict | None = None, nodes_by_id: dict | None = None) -> Kernel:
    """The loop nest of `group` (a FusionGroup of `graph`); raises NotLowerable when it has none."""
    input_strides = input_strides or {}
    nodes_by_id = nodes_by_id or {n.id: n for n in graph.nodes}
    nodes = [nodes_by_id[i] for i in group.node_ids]
    # a normalization (OpDef.normalize: softmax, log_softmax) has a kernel of its own: a reduction along
    # `dim` broadcast back over it
    if len(nodes) == 1 and nodes[0].kind == CALL and nodes[0].op in OPS and OPS[nodes[0].op].normalize:
        if getattr(group, "bias_add", None) is not None:
            raise NotLowerable("a softmax kernel takes no bias of its own")
        return _lower_normalize(group, nodes[0], input_strides)
    for n in nodes:
        if n.kind != CALL or OPS[n.op].kind not in (ELEMENTWISE, REDUCE, MOVEMENT):
            raise NotLowerable(f"{n.id} ({n.op or n.kind}) is not an elementwise/reduce op")
        if any(str(v.dtype) not in C_DTYPES for v in n.inputs + n.outputs):
            raise NotLowerable(f"{n.id}: dtype without a C type")
    reduces = [n for n in nodes if OPS[n.op].kind == REDUCE]
    if len(reduces) > 1 or (reduces and reduces[0] is not nodes[-1]):
        raise NotLowerable("only one trailing reduction per kernel")
    if all(OPS[n.op].kind == MOVEMENT for n in nodes):
        raise NotLowerable("a group of only movement ops is a view, not a kernel")
    red_node = reduces[0] if reduces else None
    compute = [n for n in nodes if OPS[n.op].kind == ELEMENTWISE]
    if red_node is not None:
        space = tuple(red_node.inputs[0].shape)
    else:
        space = tuple(np.broadcast_shapes(*(tuple(n.out.shape) for n in compute)))
    for n in compute:
        if tuple(np.broadcast_shapes(space, tuple(n.out.shape))) != space:
            raise NotLowerable(f"{n.id} does not broadcast into the kernel's space {space}")

    kernel = Kernel(group.name, space, (False,) * len(space), [], [], node_ids=list(group.node_ids))
    env: dict[str, tuple] = {}      # value id -> ("view", arg, shape, strides) | ("lit", Literal) | ("var", name)
    for vid in group.inputs:
        producer = graph_value_producer(nodes_by_id, graph, vid)
        value = producer.outputs[[v.id for v in producer.outputs].index(vid)]
        if producer.kind == CONSTANT and producer.value is not None and producer.value.size == 1:
            env[vid] = ("lit", Literal(producer.value.reshape(()).item(), np.dtype(producer.value.dtype)))
            continue
        if str(value.dtype) not in C_DTYPES:
            raise NotLowerable(f"input {vid}: dtype {value.dtype} without a C type")
        shape = tuple(value.shape)
        strides = tuple(input_strides.get(vid) or contiguous_strides(shape))
        kernel.inputs.append(Arg(vid, np.dtype(value.dtype), shape, strides))
        env[vid] = ("view", len(kernel.inputs) - 1, shape, strides)

    loads: dict[tuple, str] = {}

    def ref(vid: str):
        kind, *rest = env[vid]
        if kind == "lit":
            return rest[0]
        if kind == "var":
            return rest[0]
        arg, shape, strides = rest
        key = (arg, _broadcast_into(space, shape, strides))
        if key not in loads:
            loads[key] = f"a{len(loads)}"
            kernel.loads.append(Load(loads[key], arg, key[1]))
        return loads[key]

    bias = getattr(group, "bias_add", None)
    if bias is not None:
        # the bias of the addmm feeding this epilogue (the BLAS call wrote only the product):
        # added here, in the loop that reads the product anyway, instead of in a pass of its own
        product, bias_id, addmm = bias
        var = f"v{len(kernel.steps)}"
        kernel.steps.append(Step(var, addmm.id, "add", [ref(product), ref(bias_id)],
                                 [np.dtype(addmm.out.dtype), np.dtype(addmm.inputs[0].dtype)], {},
                                 np.dtype(addmm.out.dtype), "bias of " + describe(addmm)))
        env[product] = ("var", var)

    for n in nodes:
        kind = OPS[n.op].kind
        if kind == MOVEMENT:
            src = env.get(n.inputs[0].id)
            if src is None or src[0] == "var":
                raise NotLowerable(f"{n.id}: {n.op} of a computed value inside a kernel")
            if src[0] == "lit":
                env[n.id] = src
                continue
            strides = view_strides(n, src[2], src[3])
            if strides is None:
                raise NotLowerable(f"{n.id}: {n.op} is not a re-indexing of its source")
            env[n.id] = ("view", src[1], tuple(n.out.shape), strides)
        elif kind == ELEMENTWISE:
            var = f"v{len(kernel.steps)}"
            kernel.steps.append(Step(var, n.id, n.op, [ref(v.id) for v in n.inputs],
                                     [np.dtype(v.dtype) for v in n.inputs], dict(n.attrs),
                                     np.dtype(n.out.dtype), describe(n)))
            env[n.id] = ("var", var)

    for vid in group.outputs:
        if red_node is not None and vid == red_node.id:
            continue
        if vid not in env or env[vid][0] != "var":
            raise NotLowerable(f"output {vid} is not computed by the kernel")
        value = nodes_by_id[vid].out
        kernel.outputs.append(Arg(vid, np.dtype(value.dtype), tuple(value.shape)))
        strides = _broadcast_into(space, tuple(value.shape), contiguous_strides(value.shape))
        kernel.stores.append(Store(len(kernel.outputs) - 1, env[vid][1], strides))

    if red_node is not None:
        axes = reduction_axes(red_node)
        reduced = tuple(d in axes for d in range(len(space)))
        keep_shape = tuple(1 if r else s for s, r in zip(space, reduced))
        out_strides = tuple(0 if r else st for st, r in zip(contiguous_strides(keep_shape), reduced))
        kernel.outputs.append(Arg(red_node.id, np.dtype(red_node.out.dtype), tuple(red_node.out.shape)))
        count = int(np.prod([space[d] for d in axes], dtype=np.int64)) if axes else 1
        kernel.reduced = reduced
        kernel.reduction = Reduction(red_node.id, red_node.op, ref(red_node.inputs[0].id),
                                     np.dtype(red_node.inputs[0].dtype), np.dtype(red_node.out.dtype),
                                     dict(red_node.attrs), count, len(kernel.outputs) - 1, out_strides,
                                     describe(red_node))
        if any(st[d] == 0 and reduced[d] and space[d] > 1 for st in [s.strides for s in kernel.stores]
               for d in range(len(space))):
            raise NotLowerable("an elementwise output is broadcast along the reduced dims")
    _simplify_loops(kernel)
    return kernel


def _lower_normalize(group, node: Node, input_strides: dict) -> Kernel:
    """softmax / log_softmax along `dim`: per row, the max, the sum of exp(x - max), then every
    element written (the numerically stable form the registry's forward uses)."""
    x = node.inputs[0]
    if str(x.dtype) not in C_DTYPES or str(node.out.dtype) not in ("float32", "float64"):
        raise NotLowerable(f"{node.id}: dtype without a C kernel")
    space = tuple(x.shape)
    if not space:
        raise NotLowerable(f"{node.id}: {node.op} of a scalar")
    dim = int(node.attrs["dim"]) % len(space)
    strides = tuple(input_strides.get(x.id) or contiguous_strides(space))
    kernel = Kernel(group.name, space, tuple(d == dim for d in range(len(space))),
                    [Arg(x.id, np.dtype(x.dtype), space, strides)],
                    [Arg(node.id, np.dtype(node.out.dtype), tuple(node.out.shape))], node_ids=[node.id])
    kernel.loads.append(Load("a0", 0, strides))
    kernel.reduction = Reduction(node.id, node.op, "a0", np.dtype(x.dtype), np.dtype(node.out.dtype),
                                 dict(node.attrs), space[dim], 0, contiguous_strides(space), describe(node))
    _simplify_loops(kernel)
    return kernel


def graph_value_producer(nodes_by_id: dict, graph: Graph, vid: str) -> Node:
    base = vid.split(".")[0]
    if base in nodes_by_id:
        return nodes_by_id[base]
    raise NotLowerable(f"value {vid} has no producer in {graph.name}")


def _stride_tuples(kernel: Kernel):
    yield from (ld.strides for ld in kernel.loads)
    yield from (st.strides for st in kernel.stores)
    if kernel.reduction is not None:
        yield kernel.reduction.out_strides


def _remap(kernel: Kernel, fn) -> None:
    for ld in kernel.loads:
        ld.strides = fn(ld.strides)
    for st in kernel.stores:
        st.strides = fn(st.strides)
    if kernel.reduction is not None:
        kernel.reduction.out_strides = fn(kernel.reduction.out_strides)


OUTPUT_ACCUMULATING = {"sum", "mean", "sum_to_size"}
MAX_OUTPUT_ACCUMULATION = 4096


def _simplify_loops(kernel: Kernel) -> None:
    """Kept dims outside, reduced dims inside (or memory order for a sum over outer dims); drop
    size-1 dims; merge dims walked contiguously."""
    red = kernel.reduction
    real = [d for d in range(len(kernel.dims)) if kernel.dims[d] != 1]
    # (accumulating in the output's own type: kept to short sums, where float32 loses nothing
    # that matters; longer ones use a double register accumulator, loops reordered)
    kernel.accumulate_in_output = red is not None and red.op in OUTPUT_ACCUMULATING and bool(real) \
        and not kernel.reduced[real[-1]] and any(kernel.reduced[d] for d in real) \
        and red.count <= MAX_OUTPUT_ACCUMULATION
    if kernel.accumulate_in_output:
        order = list(range(len(kernel.dims)))
    else:
        order = [d for d in range(len(kernel.dims)) if not kernel.reduced[d]] + \
                [d for d in range(len(kernel.dims)) if kernel.reduced[d]]
    if 0 not in kernel.dims:
        order = [d for d in order if kernel.dims[d] != 1]
    _remap(kernel, lambda st: tuple(st[d] for d in order))
    kernel.dims = tuple(kernel.dims[d] for d in order)
    kernel.reduced = tuple(kernel.reduced[d] for d in order)
    d = 0
    while d + 1 < len(kernel.dims):
        inner = kernel.dims[d + 1]
        if kernel.reduced[d] == kernel.reduced[d + 1] and \
                all(st[d] == st[d + 1] * inner for st in _stride_tuples(kernel)):
            merged = kernel.dims[d] * inner
            _remap(kernel, lambda st: st[:d] + (st[d + 1],) + st[d + 2:])
            kernel.dims = kernel.dims[:d] + (merged,) + kernel.dims[d + 2:]
            kernel.reduced = kernel.reduced[:d] + kernel.reduced[d + 1:]
        else:
            d += 1
