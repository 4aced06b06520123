"""Memory planning: liveness intervals of the values kernels write, over the schedule of fusion
groups, and buffer reuse: a value takes a free buffer of its size class whose previous values are
all dead, so peak memory drops from the sum of all intermediates to the sum of the buffers.

What a step writes to memory: its group's outputs, and an extern call's whole result when an
epilogue follows it (BLAS or the convolution writes it before the epilogue's loop reads it back).
Values internal to a loop never reach memory (registers), graph inputs and constants are not the
plan's to place, and a view (reshape, transpose, ...) has no memory of its own: it keeps its
source's buffer alive for as long as it is read. A graph output is written into a fresh array the
caller keeps, so it never takes over a buffer that another value used.
"""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, PLACEHOLDER, WHILE, Graph
from engine.ir.schedule import EXTERN_GROUP, Buffer, Interval, MemoryPlan
from engine.passes.base import PassResult

MIN_SIZE_CLASS = 64        # bytes; tiny values share one class rather than fragmenting
# ops the executor runs as numpy views of their input (cat and stack are movement ops that copy)
VIEW_OPS = {"reshape", "squeeze", "unsqueeze", "transpose", "permute", "expand", "slice"}


def size_class(nbytes: int) -> int:
    """Round up to a power of two: values of one class can swap buffers without waste beyond 2x."""
    return max(MIN_SIZE_CLASS, 1 << max(int(nbytes) - 1, 0).bit_length())


def schedule_steps(g: Graph) -> list[tuple[str, list[str], list[str]]]:
    """(step name, value ids read from memory, value ids produced) per kernel, in order. Without a
    fusion plan every op is its own kernel. An extern group's call comes first among its writes
    when its result only feeds the group's own epilogue: it is in memory all the same."""
    if not g.fusion_groups:
        return [(n.id, [v.id for v in n.inputs], [v.id for v in n.outputs])
                for n in g.nodes if n.kind in (CALL, COND, WHILE)]
    nodes = {n.id: n for n in g.nodes}
    steps = []
    for grp in g.fusion_groups:
        writes = list(grp.outputs)
        head = nodes[grp.node_ids[0]]
        if grp.kind == EXTERN_GROUP and len(grp.node_ids) > 1:
            writes = [v.id for v in head.outputs if v.id not in writes] + writes
        steps.append((grp.name, list(grp.inputs), writes))
    return steps


def view_sources(g: Graph) -> dict[str, str]:
    """Value id -> the value whose memory it views (followed to the root: a view of a view)."""
    root: dict[str, str] = {}
    for n in g.nodes:
        if n.kind == CALL and n.op in VIEW_OPS:
            src = n.inputs[0].id
            root[n.out.id] = root.get(src, src)
    return root


def plan_memory(g: Graph) -> MemoryPlan:
    values = g.values()
    steps = schedule_steps(g)
    unplanned = {n.id for n in g.nodes if n.kind in (PLACEHOLDER, CONSTANT)}
    views = view_sources(g)
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    for i, (_, reads, writes) in enumerate(steps):
        for v in writes:
            if v not in views:
                start.setdefault(v, i)
                end.setdefault(v, i)
        for v in reads:
            v = views.get(v, v)               # reading a view reads its source's memory
            if v in start:
                end[v] = max(end[v], i)
    returned = {views.get(v.id, v.id) for v in g.outputs}
    for v in returned:                        # returned values stay alive past the last kernel
        if v in end:
            end[v] = len(steps)
    fresh = {v.id for v in g.outputs}         # the caller's own arrays, never a shared buffer
    nbytes = {v: _nbytes(values[v]) for v in start}
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
                     for t in range(len(steps) + 1)), default=0)
    return MemoryPlan(buffers, intervals, peak_bytes_before=sum(iv.bytes for iv in intervals),
                      peak_bytes_after=sum(b.bytes for b in buffers), live_peak_bytes=live_peak,
                      schedule=[name for name, _, _ in steps])


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
            result.notes.append({"node": v, "reason": f"reuses {b.id} (after {previous})"})
    written = {v for _, _, writes in schedule_steps(g) for v in writes}
    for view, source in view_sources(g).items():
        if view in written:               # a view inside a loop is only an index expression
            result.notes.append({"node": view, "reason": f"a view of {source}: no memory of its own"})
    return result
