"""The DOT escaper (app/services/dot_source.py): every string a run or a request sends is drawn as
exactly that text by the real `dot`, never read as an HTML-like label, an escape, an entity or DOT."""
import shutil
import subprocess
from xml.etree import ElementTree

import pytest

from app.services.dot_source import MAX_LABEL_CHARS, plain, quote, to_dot

pytestmark = pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz `dot` is not installed")
SVG = "{http://www.w3.org/2000/svg}"

HOSTILE = [
    '<<A HREF="javascript:alert(1)">click</A>>',
    '<<TABLE><TR><TD><IMG SRC="/etc/hostname"/></TD></TR></TABLE>>',
    "<b>bold</b>",
    '"];\nx [label=<<I>injected</I>>]; y -> z; //',
    "a\\",                                  # an odd number of trailing backslashes
    "\\\\\\",
    '\\"];',                                # a backslash before the quote
    "{ } [ ] ; , = -> --",
    "\\N \\G \\E \\T \\H \\L \\l \\r \\n",  # Graphviz's own escapes, as text
    "&amp; &lt;b&gt; &#60;script&#62; &xxe; & &#x26;",
    "subgraph strict digraph node edge graph",
    "emoji 🧠 ünïcödé עברית ‮rtl‬ e\u0301 \u200b zero-width",
    "%3.1:port:compass:n",
]


def _draw(graph: dict) -> ElementTree.Element:
    out = subprocess.run(["dot", "-Tsvg"], input=to_dot(graph).encode(), capture_output=True, timeout=30)
    assert out.returncode == 0, out.stderr.decode(errors="replace")
    return ElementTree.fromstring(out.stdout)


def _node_texts(svg: ElementTree.Element) -> dict:
    """{svg id of each node: its drawn lines}."""
    return {g.get("id"): [t.text or "" for t in g.iter(f"{SVG}text")]
            for g in svg.iter(f"{SVG}g") if g.get("class") == "node"}


def test_every_hostile_label_is_drawn_as_its_own_text():
    graph = {"nodes": [{"id": f"n{i}", "label": s} for i, s in enumerate(HOSTILE)], "edges": []}
    texts = _node_texts(_draw(graph))
    for i, s in enumerate(HOSTILE):
        assert "\n".join(texts[f"n{i}"]) == s, s


def test_every_hostile_string_is_an_id_kept_whole():
    ids = HOSTILE + ["line\nbreak", "tab\there"]
    graph = {"nodes": [{"id": s, "module": f"m.{s}"} for s in ids],
             "edges": [{"src": ids[i], "dst": ids[i + 1], "shape": [2]} for i in range(len(ids) - 1)]}
    svg = _draw(graph)
    node_ids = {g.get("id") for g in svg.iter(f"{SVG}g") if g.get("class") == "node"}
    cluster_ids = {g.get("id") for g in svg.iter(f"{SVG}g") if g.get("class") == "cluster"}
    assert node_ids == {s.replace("\t", " ") for s in ids}
    assert cluster_ids == {f"cluster:m.{s}".replace("\t", " ") for s in ids}
    assert sum(1 for g in svg.iter(f"{SVG}g") if g.get("class") == "edge") == len(ids) - 1


def test_no_html_label_and_no_image_reaches_dot():
    dot = to_dot({"nodes": [{"id": "x", "label": HOSTILE[1], "op": "<<IMG SRC='/x.png'/>>"}], "edges": []})
    assert "=<" not in dot and "<IMG" in dot       # the text is there, only inside a quoted string
    for line in dot.splitlines():
        assert line.count('"') % 2 == 0 or '\\"' in line


def test_nul_and_control_characters_become_replacement_characters():
    assert plain("a\x00b\x07c\x1bd\x7fe") == "a\ufffdb\ufffdc\ufffdd\ufffde"
    assert plain("a\r\nb\rc\td") == "a\\nb\\nc d"
    assert plain("\ufffe\uffff\ud800") == "\ufffd" * 3
    texts = _node_texts(_draw({"nodes": [{"id": "z", "label": "nul\x00here"}], "edges": []}))
    assert texts["z"] == ["nul\ufffdhere"]


def test_long_labels_are_cut_ids_are_not():
    long_id = "i" * 1000
    graph = {"nodes": [{"id": long_id, "label": "L" * 100_000, "op": "o" * 50_000, "shape": list(range(5000))}],
             "edges": []}
    texts = _node_texts(_draw(graph))
    label, shape = texts[long_id]
    assert label == "L" * (MAX_LABEL_CHARS - 1) + "…"
    assert len(shape) == MAX_LABEL_CHARS and shape.endswith("…")


def test_quote_is_always_a_double_quoted_string():
    for s in HOSTILE:
        q = quote(s)
        assert q.startswith('"') and q.endswith('"')
        inner = q[1:-1].replace("\\\\", "")
        assert '"' not in inner.replace('\\"', "")      # every quote inside is escaped
