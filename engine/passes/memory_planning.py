"""Memory planning: liveness intervals of the values kernels write, over the schedule of fusion
groups, and buffer reuse: a value takes a free buffer of its size class whose previous values are
all dead, so peak memory drops from the sum of all intermediates to the sum of the buffers.

Values internal to a fused group never reach memory (they live in registers inside the loop),
so only group outputs are planned; graph inputs and constants are not the plan's to place.
"""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, PLACEHOLDER, WHILE, Graph
from engine.ir.schedule import Buffer, Interval, MemoryPlan
from engine.passes.base import PassResult

MIN_SIZE_CLASS = 64        # bytes; tiny values share one class rather than fragmenting


def size_class(nbytes: int) -> int:
    """Round up to a power of two: values of one class can swap buffers without waste beyond 2x."""
    return max(MIN_SIZE_CLASS, 1 << max(int(nbytes) - 1, 0).bit_length())


def schedule_steps(g: Graph) -> list[tuple[str, list[str], list[str]]]:
    """(step name, value ids read from memory, value ids written) per kernel, in order. Without a
    fusion plan every op is its own kernel."""
    if g.fusion_groups:
        return [(grp.name, list(grp.inputs), list(grp.outputs)) for grp in g.fusion_groups]
    return [(n.id, [v.id for v in n.inputs], [v.id for v in n.outputs])
            for n in g.nodes if n.kind in (CALL, COND, WHILE)]


def plan_memory(g: Graph) -> MemoryPlan:
    values = g.values()
    steps = schedule_steps(g)
    unplanned = {n.id for n in g.nodes if n.kind in (PLACEHOLDER, CONSTANT)}
    start: dict[str, int] = {}
    end: dict[str, int] = {}
    for i, (_, reads, writes) in enumerate(steps):
        for v in writes:
            start.setdefault(v, i)
            end.setdefault(v, i)
        for v in reads:
            if v in start:
                end[v] = max(end[v], i)
    for v in g.outputs:                       # returned values stay alive past the last kernel
        if v.id in end:
            end[v.id] = len(steps)
    nbytes = {v: _nbytes(values[v]) for v in start}
    buffers: list[Buffer] = []
    free_at: dict[str, int] = {}              # buffer id -> last step its current value is read
    intervals = []
    for v in sorted(start, key=lambda v: (start[v], v)):
        if v in unplanned:
            continue
        cls = size_class(nbytes[v])
        # strictly earlier: a kernel must not overwrite an input it is still reading
        buf = next((b for b in buffers if size_class(b.bytes) == cls and free_at[b.id] < start[v]), None)
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
    return result
