"""Memory planning: liveness intervals of the values kernels write, over the schedule of fusion
groups, and buffer reuse: a value takes a free buffer of its size class whose previous values are
all dead, so peak memory drops from the sum of all intermediates to the sum of the buffers.

What reaches memory is what the executor's steps (engine.ir.units) write, each placed at the
fusion group it runs in: a kernel's outputs, and an extern call's whole result when an epilogue
follows it (BLAS or the convolution writes it before the epilogue's loop reads it back). The
executor's lowering rules count: a kernel merged into its only consumer writes nothing, and
transpose(a @ b) run as one BLAS call writes the transposed product, never the product, and a
product whose one reader is an elementwise value of its epilogue is written straight into that
value's array (the epilogue runs in place), so it has no memory of its own.
Values internal to a loop never reach memory (registers; an epilogue's value that only its
closing reduction reads, relu in relu(x @ w).sum(1), is never written), graph inputs and constants
are not the plan's to place, and a view (reshape, transpose, ...) has no memory of its own: it
keeps its source's buffer alive for as long as it is read. A graph output is written into a fresh array the
caller keeps, so it never takes over a buffer that another value used; nor does a value a
returned view looks into (the caller keeps it, seen through the view, rather than a copy).

What the executor cannot place: an op it runs as the registry's numpy forward (control flow, most
library ops) gets a fresh array every call, so its value has a buffer of its own, never shared.
A convolution writes into its planned buffer with one BLAS call over im2col columns; those
columns (and the zero-padded input, and a batch's product before its reordering) are scratch
values of its step, planned like any other: "%7:padded", "%7:im2col", "%7:product".
"""
from __future__ import annotations

import numpy as np

from engine.ir.units import Unit, in_place_products, plan_units
from engine.ir.graph import CALL, COND, CONSTANT, PLACEHOLDER, WHILE, Graph
from engine.ir.schedule import Buffer, Interval, MemoryPlan
from engine.ops.registry import ELEMENTWISE, OPS, REDUCE
from engine.passes.base import PassResult, reason

MIN_SIZE_CLASS = 64        # bytes; tiny values share one class rather than fragmenting
FLOAT_DTYPES = ("float32", "float64")


def conv_scratch(node) -> list[tuple[str, tuple, np.dtype]] | None:
    """(value id, shape, dtype) of the scratch a convolution writing into its planned buffer needs:
    the zero-padded input (when padded), the im2col columns (C*kh*kw, N*OH*OW), and for a batch
    the product (O, N*OH*OW) that one BLAS call writes before its (N, O, ...) reordering; None when
    the executor runs the registry's forward instead (mixed or non-float dtypes, or not 2-D)."""
    if node.kind != CALL or node.op != "conv2d" or len(node.inputs) not in (2, 3) or \
            len(node.inputs[0].shape) != 4 or len(node.inputs[1].shape) != 4:
        return None
    dtypes = {np.dtype(v.dtype) for v in node.inputs} | {np.dtype(node.out.dtype)}
    if len(dtypes) != 1 or str(next(iter(dtypes))) not in FLOAT_DTYPES:
        return None
    dtype = next(iter(dtypes))
    n, c, h, w = node.inputs[0].shape
    o, _, kh, kw = node.inputs[1].shape
    _, _, oh, ow = node.out.shape
    ph, pw = pair(node.attrs.get("padding", 0))
    scratch = []
    if ph or pw:
        scratch.append((f"{node.id}:padded", (n, c, h + 2 * ph, w + 2 * pw), dtype))
    scratch.append((f"{node.id}:im2col", (c * kh * kw, n * oh * ow), dtype))
    if n > 1:
        scratch.append((f"{node.id}:product", (o, n * oh * ow), dtype))
    return scratch


def pair(v) -> tuple[int, int]:
    """A conv attribute (an int or a pair) as (height, width)."""
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else (int(v[0]), int(v[1]))


def fresh_each_call(node) -> bool:
    """Whether the executor gets `node`'s result as a new array every call (the registry's forward
    or control flow on the interpreter), so no planned buffer holds it."""
    if node.kind in (COND, WHILE):
        return True
    if node.kind != CALL:
        return False
    # views (OpDef.view) take no memory; the writes_out ops write into their planned buffer (a loss's
    # hand-lowered C kernel has no numpy twin: the numpy backend runs the registry's forward, so the
    # plan gives nll_loss and gather_backward a buffer of their own)
    op = OPS[node.op]
    if op.kind in (ELEMENTWISE, REDUCE) or op.view or op.writes_out:
        return False
    return node.op != "conv2d" or conv_scratch(node) is None


def size_class(nbytes: int) -> int:
    """Round up to a power of two: values of one class can swap buffers without waste beyond 2x."""
    return max(MIN_SIZE_CLASS, 1 << max(int(nbytes) - 1, 0).bit_length())


def schedule_names(g: Graph) -> list[str]:
    """The plan's time axis: one step per fusion group (per op without a fusion plan)."""
    if g.fusion_groups:
        return [grp.name for grp in g.fusion_groups]
    return [n.id for n in g.nodes if n.kind in (CALL, COND, WHILE)]


def view_sources(units: list[Unit]) -> dict[str, str]:
    """Value id -> the value whose memory it views (followed to the root: a view of a view), for
    the views the executor runs as numpy views (a view inside a kernel is an index expression)."""
    root: dict[str, str] = {}
    for u in units:
        if u.kind == "view":
            src = u.inputs[0]
            root[u.outputs[0]] = root.get(src, src)
    return root


def plan_memory(g: Graph) -> MemoryPlan:
    """Liveness over the executor's own steps (engine.ir.units), each at the fusion group it
    runs in: its lowering rules decide what reaches memory (a kernel merged into its only consumer
    writes nothing; transpose(a @ b) is one BLAS call writing the transposed product, the product
    itself never exists; a fusion group split into several loops writes what passes between them)."""
    values = g.values()
    nodes = {n.id: n for n in g.nodes}
    units = plan_units(g, nodes)
    names = schedule_names(g)
    unplanned = {n.id for n in g.nodes if n.kind in (PLACEHOLDER, CONSTANT)}
    views = view_sources(units)
    # a product written into its epilogue value's array lives (and is read) in that array
    views.update(in_place_products(units))
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    scratch_bytes: dict[str, int] = {}
    for u in units:
        i = u.step
        if u.kind != "view":
            for out in u.outputs:
                v = views.get(out, out)
                start.setdefault(v, i)
                end.setdefault(v, i)
                for sid, shape, dtype in conv_scratch(nodes[out.split(".")[0]]) or ():
                    start[sid] = end[sid] = i          # used only while the convolution runs
                    scratch_bytes[sid] = int(np.prod(shape, dtype=np.int64)) * dtype.itemsize
        for v in u.inputs:
            v = views.get(v, v)               # reading a view reads its source's memory
            if v in start:
                end[v] = max(end[v], i)
    returned = {views.get(v.id, v.id) for v in g.outputs}
    for v in returned:                        # returned values stay alive past the last kernel
        if v in end:
            end[v] = len(names)
    # the caller's own arrays (outputs, and what a returned view looks into) and the arrays the
    # executor gets new each call: never a shared buffer
    fresh = {v.id for v in g.outputs} | returned | \
        {v for v in start if v not in scratch_bytes and fresh_each_call(nodes[v.split(".")[0]])}
    nbytes = {v: scratch_bytes[v] if v in scratch_bytes else _nbytes(values[v]) for v in start}
    buffers: list[Buffer] = []
    free_at: dict[str, int] = {}              # buffer id -> last step its current value is read
    intervals = []
    for v in sorted(start, key=lambda v: (start[v], v)):
        if v in unplanned:
            continue
        cls = size_class(nbytes[v])
        # strictly earlier: a kernel must not overwrite an input it is still reading
        buf = None if v in fresh else next(
            (b for b in buffers if size_class(b.bytes) == cls and free_at[b.id] < start[v]), None)
        if buf is None:
            buf = Buffer(f"buf{len(buffers)}", nbytes[v])
            buffers.append(buf)
        buf.bytes = max(buf.bytes, nbytes[v])
        buf.values.append(v)
        free_at[buf.id] = end[v]
        intervals.append(Interval(v, start[v], end[v], buf.id, nbytes[v]))
    live_peak = max((sum(iv.bytes for iv in intervals if iv.start <= t <= iv.end)
                     for t in range(len(names) + 1)), default=0)
    return MemoryPlan(buffers, intervals, peak_bytes_before=sum(iv.bytes for iv in intervals),
                      peak_bytes_after=sum(b.bytes for b in buffers), live_peak_bytes=live_peak,
                      schedule=names)


def _nbytes(v) -> int:
    return int(np.prod(v.shape, dtype=np.int64)) * np.dtype(v.dtype).itemsize


def memory_planning(graph: Graph) -> PassResult:
    g = graph.copy()
    plan = plan_memory(g)
    g.memory_plan = plan
    result = PassResult(g, True, extra={"memory": plan})   # JSON only in a snapshot
    for b in plan.buffers:
        # one note per reuse, naming the value it follows (listing every earlier one grew quadratically)
        for previous, v in zip(b.values, b.values[1:]):
            result.note(v, reason("memory_reuses", buffer=b.id, previous=previous), changed=False)
    units = plan_units(g, {n.id: n for n in g.nodes})
    for view, source in view_sources(units).items():
        result.note(view, reason("memory_view", source=source), changed=False)
    for product, value in in_place_products(units).items():
        result.note(product, reason("memory_blas", value=value), changed=False)
    return result
