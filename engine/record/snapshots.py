"""The pass snapshots of the run record, one per pass of a pipeline run (engine.passes.run_pipeline's
steps): the graph after the pass, its IR text, what it added, removed and changed, its notes and
stats. What the page shows as a diff per pass.

A snapshot does not repeat the graph: each snapshot's after-graph and IR text are stored as a
patch on the snapshot before it, when that is smaller.

Most passes change a few nodes of a large graph (and some change nothing), yet each snapshot used
to carry the whole graph and its IR text again: three 640-node captures filled most of the run
record's size limit with copies. The record form (run-record contract, read by static/js/passes.js):

- `graph`: the whole after-graph, or null when `graph_patch` gives it as
  `{"base": j, "nodes": [...], "edges": [...]}` on the after-graph of snapshot `j` (an earlier
  snapshot of the same list, itself whole or patched): each entry of `nodes` is a node record,
  or the id (a string) of a node whose record in the base graph is unchanged; each entry of
  `edges` is an edge, or the id (a string) of a node whose incoming edges are the base graph's
  edges into it, in their order; `edges` is omitted when all edges are the base's;
- `ir`: the IR text, or null when `ir_patch` gives it as `{"base": j, "lines": [...]}`: the text's
  lines, each entry a line, or `[start, end]` for the base text's lines start..end-1.

`expand_snapshots` turns the compact form back into whole snapshots (tests, Python readers).
"""
from __future__ import annotations

import json
from difflib import SequenceMatcher

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph
from engine.ir.printer import format_graph
from engine.passes.memory_planning import plan_memory
from engine.passes.pipeline import PipelineResult
from engine.record.graph_json import graph_to_record

# A patch replaces the whole graph or text only if it is at most this fraction of its JSON size.
MAX_PATCH_FRACTION = 0.9


def pass_snapshots(result: PipelineResult, compact: bool = True) -> list[dict]:
    """The run record's `passes` for one pipeline run (`compact=False`: every snapshot whole)."""
    snapshots = []
    for step in result.steps:
        res = step.result
        snap = {"name": step.name, "ir": format_graph(res.graph), "graph": graph_to_record(res.graph, lean=True),
                **diff(step.before, res.graph), "notes": res.notes, "stats": graph_stats(res.graph),
                "changed_anything": res.changed, "replaced": res.replaced}
        snap.update({key: _to_json(value) for key, value in res.extra.items()})
        snapshots.append(snap)
    return compact_snapshots(snapshots) if compact else snapshots


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


def _to_json(value):
    """A pass's extra data for the snapshot: plan objects (and lists of them) as their JSON."""
    if isinstance(value, list):
        return [_to_json(v) for v in value]
    return value.to_json() if hasattr(value, "to_json") else value


def compact_snapshots(snapshots: list[dict]) -> list[dict]:
    """The snapshots (whole, in pipeline order) with each graph and IR text as a patch on the
    previous snapshot's where that is smaller."""
    out: list[dict] = []
    for i, snap in enumerate(snapshots):
        snap = dict(snap)
        if i > 0:
            before = snapshots[i - 1]
            graph_patch = _graph_patch(before["graph"], snap["graph"], i - 1)
            # kept only if smaller, and checked: applied to its base it must give the graph back
            if _smaller(graph_patch, snap["graph"]) and apply_graph_patch(before["graph"], graph_patch) == snap["graph"]:
                snap["graph"], snap["graph_patch"] = None, graph_patch
            ir_patch = _ir_patch(before["ir"], snap["ir"], i - 1)
            if _smaller(ir_patch, snap["ir"]) and apply_ir_patch(before["ir"], ir_patch) == snap["ir"]:
                snap["ir"], snap["ir_patch"] = None, ir_patch
        out.append(snap)
    return out


def _graph_patch(base: dict, graph: dict, base_index: int) -> dict:
    base_nodes = {n["id"]: n for n in base["nodes"]}
    nodes = [n["id"] if base_nodes.get(n["id"]) == n else n for n in graph["nodes"]]
    patch = {"base": base_index, "nodes": nodes}
    if graph["edges"] != base["edges"]:
        base_into = _edges_into(base["edges"])
        edges = []
        for dst, into in _edges_into(graph["edges"]).items():
            edges.extend([dst] if base_into.get(dst) == into else into)
        patch["edges"] = edges
    return patch


def _edges_into(edges: list[dict]) -> dict[str, list[dict]]:
    """dst id -> its incoming edges, in order (the record lists edges grouped by dst)."""
    into: dict[str, list[dict]] = {}
    for e in edges:
        into.setdefault(e["dst"], []).append(e)
    return into


def _ir_patch(base: str, text: str, base_index: int) -> dict:
    a, b = base.split("\n"), text.split("\n")
    if a == b:                      # a pass that changed nothing: no need to diff
        return {"base": base_index, "lines": [[0, len(a)]]}
    lines: list = []
    for op, i1, i2, j1, j2 in SequenceMatcher(None, a, b, autojunk=False).get_opcodes():
        lines.extend([[i1, i2]] if op == "equal" else b[j1:j2])
    return {"base": base_index, "lines": lines}


def _smaller(patch, whole) -> bool:
    return len(_dumps(patch)) <= MAX_PATCH_FRACTION * len(_dumps(whole))


def expand_snapshots(snapshots: list[dict]) -> list[dict]:
    """Whole snapshots again: every `graph` and `ir` present (the inverse of compact_snapshots)."""
    out: list[dict] = []
    for snap in snapshots:
        snap = dict(snap)
        patch = snap.pop("graph_patch", None)
        if patch is not None:
            snap["graph"] = apply_graph_patch(out[patch["base"]]["graph"], patch)
        patch = snap.pop("ir_patch", None)
        if patch is not None:
            snap["ir"] = apply_ir_patch(out[patch["base"]]["ir"], patch)
        out.append(snap)
    return out


def apply_graph_patch(base: dict, patch: dict) -> dict:
    by_id = {n["id"]: n for n in base["nodes"]}
    edges = base["edges"]
    if "edges" in patch:
        base_into = _edges_into(base["edges"])
        edges = [e for entry in patch["edges"]
                 for e in (base_into.get(entry, []) if isinstance(entry, str) else [entry])]
    return {"nodes": [by_id[n] if isinstance(n, str) else n for n in patch["nodes"]], "edges": edges}


def apply_ir_patch(base: str, patch: dict) -> str:
    base_lines = base.split("\n")
    return "\n".join(line for entry in patch["lines"]
                     for line in (base_lines[entry[0]:entry[1]] if isinstance(entry, list) else [entry]))


def _dumps(obj) -> str:
    return json.dumps(obj, separators=(",", ":"))
