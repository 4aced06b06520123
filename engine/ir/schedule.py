"""The plan that passes hand to the code generator: fusion groups and the memory plan.

`Graph.fusion_groups` is a list of `FusionGroup` in execution order; every call node of the graph
belongs to exactly one group (a lone op is a group of one). `Graph.memory_plan` is a `MemoryPlan`.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field

ELEMENTWISE_GROUP, REDUCTION_GROUP, EXTERN_GROUP = "elementwise", "reduction", "extern"


@dataclass
class FusionGroup:
    name: str                 # e.g. "fused_mul_add_tanh_0": one kernel
    kind: str                 # "elementwise" | "reduction" (elementwise ops + a trailing reduce) |
                              # "extern" (matmul/addmm + optional elementwise epilogue, movement, control)
    node_ids: list[str]       # the group's nodes, in topological order
    inputs: list[str]         # value ids the group reads that are produced outside it (incl. constants)
    outputs: list[str]        # value ids used outside the group or returned by the graph

    def to_json(self) -> dict:
        return asdict(self)


@dataclass
class Interval:
    value: str                # value id
    start: int                # index in the schedule (of fusion groups) where it is produced
    end: int                  # last index where it is read (len(schedule) for graph outputs)
    buffer: str | None        # the buffer it lives in (None: inputs/constants, not planned)
    bytes: int


@dataclass
class Buffer:
    id: str                   # "buf0"
    bytes: int                # its size (the largest value it holds)
    values: list[str] = field(default_factory=list)


@dataclass
class MemoryPlan:
    buffers: list[Buffer]
    intervals: list[Interval]
    peak_bytes_before: int    # without planning: every intermediate in its own buffer for the whole run
    peak_bytes_after: int     # with reuse: the sum of the planned buffers' sizes
    live_peak_bytes: int = 0  # the lower bound: the most bytes simultaneously live at one step
    schedule: list[str] = field(default_factory=list)   # fusion group names (the time axis)

    def assignment(self) -> dict[str, str]:
        """value id -> buffer id."""
        return {v: b.id for b in self.buffers for v in b.values}

    def to_json(self) -> dict:
        return {"buffers": [asdict(b) for b in self.buffers],
                "intervals": [asdict(i) for i in self.intervals],
                "peak_bytes_before": self.peak_bytes_before, "peak_bytes_after": self.peak_bytes_after,
                "live_peak_bytes": self.live_peak_bytes,
                "schedule": list(self.schedule)}
