"""Graph JSON -> DOT text, every string from a run or a request quoted as plain text.

Graphviz reads a label of the form `<...>` as an HTML-like label (links, `<IMG SRC>` that reads
the server's files), `\\N`/`\\G`/`\\L` as escapes, and `&name;` as an entity; the `graphviz`
package passes `<...>` through as HTML on purpose. So the DOT text is written here, by hand:
names are generated (`n0`, `cluster_0`), and every value, ours or the run's, goes through
`quote`, which always makes a double-quoted DOT string, never an HTML one."""
from __future__ import annotations

import re

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
    # an ONNX operator Dagscope draws but does not run (engine/onnx/reader.py: op "onnx::<OpType>")
    "unknown": {"shape": "box", "style": "rounded,filled,dashed,bold", "fillcolor": "#fee2e2", "color": "#dc2626"},
}
_GRAPH = {"rankdir": "TB", "bgcolor": "transparent", "nodesep": "0.25", "ranksep": "0.35"}
_NODE = {"fontname": "Helvetica", "fontsize": "11", "height": "0.3"}
_EDGE = {"fontname": "Helvetica", "fontsize": "9", "color": "#6b7280", "arrowsize": "0.6"}
_CLUSTER = {"style": "rounded,dashed", "color": "#9ca3af", "fontname": "Helvetica", "fontsize": "11"}   # as a node label: a cluster title (a module, a cond branch) is read as often

# Drawn text is cut here (the page shows the whole name in its inspector); Graphviz refuses a
# quoted string longer than 16384 bytes, and a very wide label only slows the layout.
MAX_LABEL_CHARS = 200
# C0 controls and DEL (NUL ends Graphviz's string scanner), lone surrogates and the two
# characters XML cannot hold (U+FFFE, U+FFFF) become U+FFFD; a tab becomes a space.
_UNPRINTABLE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\ud800-\udfff\ufffe\uffff]")


def cut(text, limit: int = MAX_LABEL_CHARS) -> str:
    """`text` shortened to `limit` characters, the last one an ellipsis when it was longer."""
    text = str(text)
    return text if len(text) <= limit else text[:limit - 1] + "…"


_LABEL_BREAK, _ID_BREAK = "\\n", "&#10;"


def plain(text, line_break: str = _LABEL_BREAK) -> str:
    """The DOT escString that Graphviz draws as exactly `text`: backslashes doubled (no `\\N`,
    `\\G`, `\\l` escapes), `&` written `&amp;` (Graphviz decodes entities in labels and
    passes them through in ids), quotes escaped, line breaks as `line_break` (Graphviz's `\\n`
    in a label; `&#10;` in an id, which becomes an SVG attribute, where a raw one is a space)."""
    text = _UNPRINTABLE.sub("\ufffd", str(text).replace("\r\n", "\n").replace("\r", "\n").replace("\t", " "))
    return (text.replace("\\", "\\\\").replace('"', '\\"').replace("&", "&amp;")
            .replace("\n", line_break))


def quote(text, line_break: str = _LABEL_BREAK) -> str:
    """`text` as a double-quoted DOT string (never an ID, a keyword or an HTML-like `<...>`)."""
    return '"' + plain(text, line_break) + '"'


def _attrs(attrs: dict) -> str:
    """`[k="v", ...]`; the keys are ours (fixed names), the values anyone's."""
    return "[" + ", ".join(f"{k}={quote(v, _ID_BREAK if k == 'id' else _LABEL_BREAK)}"
                           for k, v in attrs.items()) + "]"


# The drawing's one word of its own: a 0-d tensor's shape, in the page's language.
SCALAR = {"en": "scalar", "zh-CN": "标量"}


def _shape_text(shape, lang: str = "en") -> str:
    if shape is None:
        return ""
    return "[" + ",".join(str(d) for d in shape) + "]" if len(shape) else SCALAR.get(lang, SCALAR["en"])


def to_dot(graph: dict, direction: str = "TB", lang: str = "en") -> str:
    """Pure: the DOT text of a run-record Graph. Node ids become SVG element ids.

    DOT names are generated (`n0`, `n1`...) rather than the graph's ids, because DOT reads a
    `:` in an edge endpoint as a port (`module:fc1`, `%3.1`); the real id rides in `id=`."""
    names: dict[str, str] = {}

    def dot_name(nid: str) -> str:
        return names.setdefault(nid, f"n{len(names)}")

    top: list[str] = []
    clusters: dict[str, list[str]] = {}
    for node in graph.get("nodes", []):
        nid = str(node["id"])
        label = cut(node.get("label") or node.get("op") or nid)
        shape = node.get("shape")
        if shape is not None:
            label = f"{label}\n{cut(_shape_text(shape, lang))}"
        # ids are kept whole: the page finds nodes by them (the request schema bounds their length)
        kind = "unknown" if str(node.get("op") or "").startswith("onnx::") else node.get("kind") or "op"
        attrs = {**_STYLE.get(kind, _STYLE["op"]),
                 "id": nid, "label": label, "tooltip": cut(node.get("op") or nid)}
        line = f"{dot_name(nid)} {_attrs(attrs)}"
        module = node.get("module")
        if module and graph.get("clusters", True):
            clusters.setdefault(str(module), []).append(line)
        else:
            top.append(line)
    out = [f"digraph G {{",
           f"\tgraph {_attrs({**_GRAPH, 'rankdir': direction})}",
           f"\tnode {_attrs(_NODE)}",
           f"\tedge {_attrs(_EDGE)}"]
    out += [f"\t{line}" for line in top]
    for i, (module, lines) in enumerate(clusters.items()):
        out.append(f"\tsubgraph cluster_{i} {{")
        out.append(f"\t\tgraph {_attrs({**_CLUSTER, 'label': cut(module), 'id': f'cluster:{module}'})}")
        out += [f"\t\t{line}" for line in lines]
        out.append("\t}")
    for edge in graph.get("edges", []):
        shape = edge.get("shape")
        label = f" [label={quote(cut(_shape_text(shape, lang)))}]" if shape else ""
        out.append(f"\t{dot_name(str(edge['src']))} -> {dot_name(str(edge['dst']))}{label}")
    out.append("}")
    return "\n".join(out) + "\n"
