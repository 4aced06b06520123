"""Graph JSON -> DOT -> SVG/PNG with Graphviz, time-limited and cached by the DOT text's hash."""
from __future__ import annotations

import hashlib
import shutil
import subprocess
from collections import OrderedDict
from dataclasses import dataclass

import graphviz

# Fill colours by node kind; kept few and calm so a projected graph stays readable.
_STYLE = {
    "input": {"shape": "box", "style": "rounded,filled", "fillcolor": "#dbeafe", "color": "#2563eb"},
    "param": {"shape": "box", "style": "rounded,filled", "fillcolor": "#fef3c7", "color": "#d97706"},
    "const": {"shape": "box", "style": "rounded,filled,dashed", "fillcolor": "#f3f4f6", "color": "#6b7280"},
    "op": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ffffff", "color": "#374151"},
    "output": {"shape": "box", "style": "rounded,filled,bold", "fillcolor": "#dcfce7", "color": "#16a34a"},
    "grad": {"shape": "box", "style": "rounded,filled", "fillcolor": "#fce7f3", "color": "#db2777"},
    "accumulate": {"shape": "box", "style": "rounded,filled", "fillcolor": "#ede9fe", "color": "#7c3aed"},
    "module": {"shape": "box3d", "style": "filled", "fillcolor": "#e0f2fe", "color": "#0369a1"},
    "control": {"shape": "diamond", "style": "filled", "fillcolor": "#fff7ed", "color": "#ea580c"},
}
_CACHE_SIZE = 256
_cache: "OrderedDict[str, bytes]" = OrderedDict()


class RenderError(Exception):
    """The drawing could not be made; the message says why in plain words."""


@dataclass
class Rendered:
    content: bytes
    media_type: str
    cached: bool


def _shape_text(shape) -> str:
    if shape is None:
        return ""
    return "[" + ",".join(str(d) for d in shape) + "]" if len(shape) else "scalar"


def to_dot(graph: dict, direction: str = "TB") -> str:
    """Pure: the DOT text of a run-record Graph. Node ids become SVG element ids.

    DOT names are generated (`n0`, `n1`...) rather than the graph's ids, because DOT reads a
    `:` in an edge endpoint as a port (`module:fc1`, `%3.1`); the real id rides in `id=`."""
    dot = graphviz.Digraph("G", graph_attr={"rankdir": direction, "bgcolor": "transparent",
                                            "nodesep": "0.25", "ranksep": "0.35"},
                           node_attr={"fontname": "Helvetica", "fontsize": "11", "height": "0.3"},
                           edge_attr={"fontname": "Helvetica", "fontsize": "9", "color": "#6b7280",
                                      "arrowsize": "0.6"})
    names: dict[str, str] = {}

    def dot_name(nid: str) -> str:
        return names.setdefault(nid, f"n{len(names)}")

    clusters: dict[str, graphviz.Digraph] = {}
    for node in graph.get("nodes", []):
        nid = str(node["id"])
        label = node.get("label") or node.get("op") or nid
        shape = node.get("shape")
        if shape is not None:
            label = f"{label}\n{_shape_text(shape)}"
        attrs = dict(_STYLE.get(node.get("kind") or "op", _STYLE["op"]))
        attrs.update(id=nid, label=label, tooltip=node.get("op") or nid)
        target = dot
        module = node.get("module")
        if module and graph.get("clusters", True):
            if module not in clusters:
                clusters[module] = graphviz.Digraph(name=f"cluster_{len(clusters)}", graph_attr={
                    "label": module, "style": "rounded,dashed", "color": "#9ca3af",
                    "fontname": "Helvetica", "fontsize": "10", "id": f"cluster:{module}"})
            target = clusters[module]
        target.node(dot_name(nid), **attrs)
    for sub in clusters.values():
        dot.subgraph(sub)
    for edge in graph.get("edges", []):
        shape = edge.get("shape")
        dot.edge(dot_name(str(edge["src"])), dot_name(str(edge["dst"])),
                 label=_shape_text(shape) if shape else "")
    return dot.source


def render(graph: dict, fmt: str = "svg", direction: str = "TB", timeout_s: float = 10.0) -> Rendered:
    source = to_dot(graph, direction)
    if fmt == "dot":
        return Rendered(source.encode(), "text/vnd.graphviz", False)
    key = hashlib.sha256(f"{fmt}\0{source}".encode()).hexdigest()
    if key in _cache:
        _cache.move_to_end(key)
        return Rendered(_cache[key], _media_type(fmt), True)
    dot_bin = shutil.which("dot")
    if dot_bin is None:
        raise RenderError("Graphviz is not installed: `dot` was not found (apt-get install graphviz).")
    try:
        proc = subprocess.run([dot_bin, f"-T{fmt}"], input=source.encode(), capture_output=True,
                              timeout=timeout_s, check=False)
    except subprocess.TimeoutExpired:
        raise RenderError(f"The graph is too large to draw within {timeout_s:g} s "
                          f"({len(graph.get('nodes', []))} nodes); collapse modules or draw a part.") from None
    if proc.returncode != 0:
        raise RenderError("Graphviz could not draw this graph: " + proc.stderr.decode(errors="replace")[:500])
    _cache[key] = proc.stdout
    if len(_cache) > _CACHE_SIZE:
        _cache.popitem(last=False)
    return Rendered(proc.stdout, _media_type(fmt), False)


def _media_type(fmt: str) -> str:
    return {"svg": "image/svg+xml", "png": "image/png"}.get(fmt, "text/plain")
