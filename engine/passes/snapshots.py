"""Pass snapshots without repeating the graph: each snapshot's after-graph and IR text are stored
as a patch on the snapshot before it, when that is smaller.

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

# A patch replaces the whole graph or text only if it is at most this fraction of its JSON size.
MAX_PATCH_FRACTION = 0.9


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
