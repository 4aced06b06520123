"""Pure views of a run-record Graph for drawing: collapse modules into one box, fold repeated blocks.

Large graphs are unreadable (and slow for `dot`) when every op is drawn; a class first sees the
model's modules as boxes and opens the one it cares about."""
from __future__ import annotations

import re
from collections import Counter, defaultdict

AUTO_COLLAPSE_NODES = 150       # above this many nodes, modules start collapsed
MIN_REPEATS = 3                 # "Block ×N" only for runs of at least this many identical blocks


def _prefix(module: str, depth: int) -> str:
    return ".".join(module.split(".")[:depth])


def collapse(graph: dict, modules: list[str] | None = None, expanded: list[str] | None = None,
             auto: bool = False) -> dict:
    """Replace every node inside a collapsed module by one node `module:<path>`.

    `modules`: paths to collapse. `auto`: collapse the top-level modules when the graph is large.
    `expanded`: paths the user opened (their children are collapsed one level deeper instead)."""
    nodes = graph.get("nodes", [])
    collapsed = set(modules or [])
    expanded = set(expanded or [])
    if auto and len(nodes) > AUTO_COLLAPSE_NODES:
        for n in nodes:
            if n.get("module"):
                collapsed.add(_collapse_target(n["module"], expanded))
    if not collapsed:
        return graph
    target_of: dict[str, str] = {}
    members: dict[str, list[dict]] = defaultdict(list)
    for n in nodes:
        m = n.get("module")
        hit = _covering(m, collapsed) if m else None
        if hit is not None:
            target_of[n["id"]] = f"module:{hit}"
            members[hit].append(n)
    def make(tid: str) -> dict:
        path = tid.split(":", 1)[1]
        inner = members[path]
        return {"id": tid, "op": "module", "kind": "module", "module": _parent(path),
                "label": f"{path}\n{len(inner)} ops", "shape": None, "dtype": None,
                "members": [m["id"] for m in inner], "signature": _signature(inner)}
    return _merge(graph, target_of, make)


def _merge(graph: dict, target_of: dict[str, str], make) -> dict:
    """Replace the nodes named in `target_of` by their targets (made once each by `make`),
    rerouting edges and dropping the ones that fall inside a target."""
    out_nodes, emitted = [], set()
    for n in graph.get("nodes", []):
        tid = target_of.get(n["id"])
        if tid is None:
            out_nodes.append(n)
        elif tid not in emitted:
            emitted.add(tid)
            out_nodes.append(make(tid))
    out_edges, seen = [], set()
    for e in graph.get("edges", []):
        src, dst = target_of.get(e["src"], e["src"]), target_of.get(e["dst"], e["dst"])
        if src == dst or (src, dst) in seen:
            continue
        seen.add((src, dst))
        out_edges.append({**e, "src": src, "dst": dst})
    return {**graph, "nodes": out_nodes, "edges": out_edges}


def _collapse_target(module: str, expanded: set[str]) -> str:
    depth = 1
    while _prefix(module, depth) in expanded and depth < len(module.split(".")):
        depth += 1
    return _prefix(module, depth)


def _covering(module: str, collapsed: set[str]) -> str | None:
    parts = module.split(".")
    for depth in range(1, len(parts) + 1):
        p = ".".join(parts[:depth])
        if p in collapsed:
            return p
    return None


def _parent(path: str) -> str | None:
    return path.rsplit(".", 1)[0] if "." in path else None


def _signature(inner: list[dict]) -> str:
    counts = Counter(n.get("op") for n in inner)
    return ",".join(f"{op}:{c}" for op, c in sorted(counts.items(), key=lambda kv: str(kv[0])))


def _list(value) -> list:
    return value if isinstance(value, list) else []


_INDEXED = re.compile(r"^(?P<base>.*)\.(?P<i>\d+)$")


def fold_repeats(graph: dict) -> dict:
    """Fold runs of identical collapsed blocks (`layers.0` … `layers.11`) into one `Block ×N` node."""
    groups: dict[tuple[str, str], list[dict]] = defaultdict(list)
    for n in graph.get("nodes", []):
        # module nodes are collapse()'s, or a request's own (any id, any extra fields)
        if n.get("kind") != "module" or ":" not in n["id"]:
            continue
        m = _INDEXED.match(n["id"].split(":", 1)[1])
        if m:
            groups[(m.group("base"), str(n.get("signature", "")))].append(n)
    target_of: dict[str, str] = {}
    folded_nodes: dict[str, dict] = {}
    for (base, _sig), blocks in groups.items():
        if len(blocks) < MIN_REPEATS:
            continue
        blocks.sort(key=lambda n: int(_INDEXED.match(n["id"].split(":", 1)[1]).group("i")))
        first, last = (_INDEXED.match(b["id"].split(":", 1)[1]).group("i") for b in (blocks[0], blocks[-1]))
        fid = f"fold:{base}.{first}-{last}"
        inner_label = blocks[0]["label"].split("\n", 1)[-1]
        folded_nodes[fid] = {"id": fid, "op": "module", "kind": "module", "module": blocks[0].get("module"),
                             "label": f"{base}.{first}…{last}\nBlock ×{len(blocks)} ({inner_label} each)",
                             "shape": None, "dtype": None,
                             "members": [m for b in blocks for m in _list(b.get("members"))],
                             "blocks": [b["id"] for b in blocks]}
        for b in blocks:
            target_of[b["id"]] = fid
    if not target_of:
        return graph
    return _merge(graph, target_of, folded_nodes.__getitem__)
