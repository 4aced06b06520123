"""The pass pipeline: runs a readable list of passes, verifies the graph after each, and keeps a
snapshot per pass (what the page shows as a diff; the names are the run-record contract). A
snapshot's graph and IR text refer to an earlier snapshot's when they repeat it (snapshots.py)."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from engine.ir.graph import CALL, CONSTANT, COND, OUTPUT, PLACEHOLDER, WHILE, Graph
from engine.ir.printer import format_graph
from engine.ir.record import graph_to_record
from engine.ir.verify import verify
from engine.passes.algebraic_simplification import algebraic_simplification
from engine.passes.base import PassResult
from engine.passes.constant_folding import constant_folding
from engine.passes.cse import cse
from engine.passes.dce import dce
from engine.passes.fusion import fusion
from engine.passes.memory_planning import memory_planning, plan_memory
from engine.passes.snapshots import compact_snapshots

Pass = Callable[[Graph], PassResult]

DEFAULT_PASSES: list[Pass] = [
    constant_folding,
    algebraic_simplification,
    cse,
    dce,
    fusion,
    memory_planning,
]


@dataclass
class PipelineResult:
    graph: Graph                                   # the optimized graph (fusion plan and memory plan on it)
    snapshots: list[dict] = field(default_factory=list)


def node_signature(node) -> tuple:
    """What makes a node 'changed' between snapshots: its definition, inputs, spec and group."""
    value = node.value.tobytes() if node.kind == CONSTANT and node.value.nbytes <= 1 << 16 else None
    return (node.kind, node.op, tuple(v.id for v in node.inputs), repr(sorted(node.attrs.items())),
            tuple((v.shape, str(v.dtype)) for v in node.outputs), value)


def graph_stats(g: Graph) -> dict:
    nodes = [n for n in g.nodes if n.kind not in (PLACEHOLDER, OUTPUT)]
    kernels = len(g.fusion_groups) if g.fusion_groups else sum(n.kind in (CALL, COND, WHILE) for n in nodes)
    plan = g.memory_plan or plan_memory(g)
    return {"nodes": len(nodes), "kernels": kernels, "peak_bytes": plan.peak_bytes_after,
            "peak_bytes_unplanned": plan.peak_bytes_before, "live_peak_bytes": plan.live_peak_bytes}


def diff(before: Graph, after: Graph) -> dict:
    old = {n.id: n for n in before.nodes if n.kind != OUTPUT}
    new = {n.id: n for n in after.nodes if n.kind != OUTPUT}
    old_groups = {nid: grp.name for grp in before.fusion_groups for nid in grp.node_ids}
    new_groups = {nid: grp.name for grp in after.fusion_groups for nid in grp.node_ids}
    changed = [i for i in new if i in old and (node_signature(new[i]) != node_signature(old[i])
                                              or old_groups.get(i) != new_groups.get(i))]
    return {"added": [i for i in new if i not in old], "removed": [i for i in old if i not in new],
            "changed": changed}


def run_pipeline(graph: Graph, passes: list[Pass] | None = None, check: bool = True,
                 snapshots: bool = True) -> PipelineResult:
    """Run `passes` in order on a copy of `graph`; `check` runs the verifier after each pass.
    `snapshots=False` (compiling only, nothing shown) skips the per-pass IR text, record and diff,
    which cost more than the passes themselves."""
    passes = DEFAULT_PASSES if passes is None else passes
    if check:
        verify(graph)
    current = graph
    out = PipelineResult(graph)
    for p in passes:
        previous = current
        res = p(current)
        if check:
            try:
                verify(res.graph)
            except AssertionError as exc:
                raise AssertionError(f"after pass {p.__name__}: {exc}") from exc
        current = res.graph
        if not snapshots:
            continue
        snap = {"name": p.__name__, "ir": format_graph(res.graph), "graph": graph_to_record(res.graph, lean=True),
                **diff(previous, res.graph), "notes": res.notes, "stats": graph_stats(res.graph),
                "changed_anything": res.changed, "replaced": res.replaced}
        snap.update({key: _to_json(value) for key, value in res.extra.items()})
        out.snapshots.append(snap)
    out.graph = current
    out.snapshots = compact_snapshots(out.snapshots)
    return out


def _to_json(value):
    """A pass's extra data for the snapshot: plan objects (and lists of them) as their JSON."""
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value.to_json() if hasattr(value, "to_json") else value


def outputs_equal(a: list, b: list, rtol: float = 1e-5, atol: float = 1e-6) -> bool:
    """The preservation check tests use: same shapes, dtypes and values (NaN equal to NaN)."""
    return len(a) == len(b) and all(
        np.shape(x) == np.shape(y) and np.asarray(x).dtype == np.asarray(y).dtype
        and np.allclose(x, y, rtol=rtol, atol=atol, equal_nan=True) for x, y in zip(a, b))
