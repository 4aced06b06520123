"""Issue 13, class 4 ("Graphviz labels are HTML") and class 5's render item ("6 concurrent renders
at the schema maximum took 23-36 s against the 10 s limit and slowed /healthz to 5 s").

Every attack goes through the live server's POST /api/render, directly or with the graphs a
hostile program's run produced. Contained means: the answer is a drawing in which every hostile
string is text (no link, image, script, event attribute; drawn as exactly the string sent), or a
4xx/503 with a clear message, within DAGSCOPE_RENDER_TIMEOUT + 1 s; what the attack aimed at
(a host file, a host PNG, a javascript: URL, an extra DOT node) is absent; /healthz stays fast
(the suite's poller) and no `dot` is left below the server.
Lower-level cases call app.services.dot_process directly to show the second wall (dot confined by
Landlock) holds where the first (escaping) would not.
"""
from __future__ import annotations

import concurrent.futures
import json
import os
import re
import shutil
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path
from xml.etree import ElementTree

import httpx
import pytest

from app.config import get_settings
from app.schemas import MAX_GRAPH_EDGES, MAX_GRAPH_NODES
from proc_tree import descendants

SVG = "{http://www.w3.org/2000/svg}"
RENDER_TIMEOUT_S = get_settings().render_timeout_s     # the live server reads the same environment
JS = '<<A HREF="javascript:document.title=\'pwned\'" TARGET="_top">click</A>>'
JS_VARIANTS = [JS, '<<TABLE HREF="javascript:alert(1)"><TR><TD>x</TD></TR></TABLE>>',
               "<<FONT><A HREF='JaVaScRiPt:alert(1)' TITLE='t'>y</A></FONT>>"]


def png(width: int, height: int, rgb=(255, 0, 0)) -> bytes:
    """A solid-colour PNG, made by hand (no imaging library needed)."""
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack("!I", len(data)) + kind + data + struct.pack("!I", zlib.crc32(kind + data))
    row = b"\x00" + bytes(rgb) * width
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack("!IIBBBBB", width, height, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(row * height)) + chunk(b"IEND", b""))


def png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n", data[:40]
    return struct.unpack("!II", data[16:24])


@pytest.fixture(scope="module")
def host_png():
    """A big red PNG any user may read (a host image an IMG label would draw into the answer)."""
    folder = Path(tempfile.mkdtemp(prefix="dagscope-host-images-", dir="/tmp"))
    os.chmod(folder, 0o755)
    path = folder / "host-secret.png"
    for name in (path.name, "host-secret"):            # the second for names that may hold no "."
        (folder / name).write_bytes(png(2000, 1500))
        os.chmod(folder / name, 0o644)
    yield path
    shutil.rmtree(folder)


def render(live_server, graph: dict, fmt: str = "svg", **extra) -> httpx.Response:
    started = time.monotonic()
    r = live_server.request("POST", "/api/render", json={"graph": graph, "format": fmt, **extra})
    took = time.monotonic() - started
    assert took <= RENDER_TIMEOUT_S + 1.0, f"answered after {took:.2f} s"
    assert r.status_code < 500, (r.status_code, r.text[:500])
    return r


def inert(svg_text: str) -> ElementTree.Element:
    """The SVG parses, and nothing in it can act or reach out."""
    assert "<!DOCTYPE" not in svg_text and "<!ENTITY" not in svg_text
    svg = ElementTree.fromstring(svg_text)
    for el in svg.iter():
        tag = el.tag.split("}")[-1]
        assert tag not in ("a", "image", "script", "foreignObject", "use", "style", "iframe"), tag
        for name, value in el.attrib.items():
            local = name.split("}")[-1].lower()
            assert not local.startswith("on") and local not in ("href", "style", "src"), (tag, name)
            if local != "id":      # an id is a name (the run's own, kept whole), never a URL
                assert "javascript:" not in value.lower() and "url(" not in value.replace("url(#", ""), (tag, name)
    return svg


def node_texts(svg: ElementTree.Element) -> dict:
    return {g.get("id"): "\n".join(t.text or "" for t in g.iter(f"{SVG}text"))
            for g in svg.iter(f"{SVG}g") if g.get("class") == "node"}


_QUOTED = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)


def assert_only_quoted(dot_text: str, *fragments: str) -> None:
    """DOT output: each fragment occurs only inside double-quoted strings (never as an HTML-like
    `<...>` label, a node, an edge or an attribute of its own)."""
    outside = _QUOTED.sub('""', dot_text)
    for fragment in fragments:
        assert fragment not in outside, (fragment, outside[:2000])
    assert outside.count("{") == outside.count("}")


def dots_below(live_server) -> list[int]:
    found = []
    for pid in descendants(live_server.pid):
        try:
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() in ("dot", "nice"):
                    found.append(pid)
        except OSError:
            pass
    return found


# -- class 4: HTML-like labels ---------------------------------------------------------------------

@pytest.mark.parametrize("field", ["label", "op", "module", "id"])
@pytest.mark.parametrize("label", JS_VARIANTS, ids=["a-href", "table-href", "mixed-case"])
def test_class4_javascript_links_in_labels_are_text(live_server, field, label):
    """class 4: <A HREF="javascript:..."> in a label, a tooltip (op), a cluster (module), an id."""
    node = {"id": "n0", "op": "relu", "label": "plain"}
    node[field] = label
    r = render(live_server, {"nodes": [node, {"id": "n1", "op": "sum"}], "edges": [{"src": node["id"], "dst": "n1"}]})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    svg = inert(r.text)
    texts = node_texts(svg)
    if field == "label":
        assert texts["n0"] == label                 # drawn as exactly the text sent
    elif field == "id":
        assert label in texts                       # the id survives as an id, not markup
    elif field == "module":
        cluster = [g for g in svg.iter(f"{SVG}g") if g.get("class") == "cluster"]
        assert [g.get("id") for g in cluster] == [f"cluster:{label}"]
        assert "\n".join(t.text for t in cluster[0].iter(f"{SVG}text")) == label


@pytest.mark.parametrize("fmt", ["svg", "png", "dot"])
@pytest.mark.parametrize("target", ["host-png", "etc", "proc"])
def test_class4_img_labels_draw_no_host_file(live_server, host_png, fmt, target):
    """class 4: <IMG SRC> in a label must not read the server's files nor draw a host PNG."""
    path = {"host-png": str(host_png), "etc": "/etc/hostname", "proc": "/proc/self/environ"}[target]
    label = f'<<TABLE><TR><TD><IMG SRC="{path}"/></TD></TR></TABLE>>'
    graph = {"nodes": [{"id": "a", "label": label}, {"id": "b", "label": f'<<IMG SRC="{path}"/>>'}], "edges": []}
    r = render(live_server, graph, fmt)
    assert r.status_code == 200, r.text[:300]
    if fmt == "png":
        width, height = png_size(r.content)
        assert width < 2000 and height < 300, (width, height)    # two text boxes, not a 2000x1500 image
    elif fmt == "svg":
        assert node_texts(inert(r.text)) == {"a": label, "b": f'<<IMG SRC="{path}"/>>'}
    else:
        assert_only_quoted(r.text, "<", "IMG", path)
        assert f'label="<<IMG SRC=\\"{path}\\"/>>"' in r.text


def test_class4_img_labels_are_no_file_probe(live_server, host_png):
    """class 4: an existing and a missing host file give the same kind of answer (no oracle)."""
    answers = []
    for path in (str(host_png), str(host_png) + ".missing", "/root/.bashrc", "/nonexistent/x.png"):
        r = render(live_server, {"nodes": [{"id": "a", "label": f'<<IMG SRC="{path}"/>>'}], "edges": []}, "png")
        answers.append((r.status_code, png_size(r.content)[1]))
    assert len(set(answers)) == 1, answers


# -- class 4: hostile names produced by a run ------------------------------------------------------

RUN_JS = '<<A HREF="javascript:alert(1)" TARGET="_top">click</A>>'     # module names may hold no "."
HOSTILE_RUN = r'''
import torch, torch.nn as nn
JS = {js!r}
IMG = {img!r}
DOT = 'x"]; evil [label="INJECTED"]; n0 -> evil; //'
def f(x):
    return (x * 2).relu().sum()
f.__name__ = f.__qualname__ = JS          # the compiled graph's title
class M(nn.Module):
    def __init__(self):
        super().__init__()
        self.add_module(JS, nn.Linear(3, 2))
        self.add_module(DOT, nn.Linear(2, 2))
        self.register_parameter(IMG, nn.Parameter(torch.randn(2)))
    def forward(self, x):
        for m in self.children():
            x = m(x)
        return x * getattr(self, IMG)
x = torch.randn(4, 3)
m = M()
m(x).sum().backward()
torch.compile(f)(torch.randn(3))
'''


def _graphs(record):
    for g in record["graphs"]:
        for part in ("forward", "backward"):
            if g.get(part):
                yield g, part, g[part]


def test_class4_module_parameter_and_title_names_from_a_run(attack, live_server, host_png):
    """class 4: module names, a parameter (tensor) name and a graph title produced by a run,
    drawn as SVG, PNG and DOT, node by node (each module a cluster)."""
    img = f'<<IMG SRC="{host_png.with_suffix("")}"/>>'
    assert "." not in img
    record = attack(HOSTILE_RUN.format(js=RUN_JS, img=img))
    assert record["ok"], record["error"]
    assert any(RUN_JS == n.get("module") for _, _, gr in _graphs(record) for n in gr["nodes"])
    assert any(img == n.get("label") for _, _, gr in _graphs(record) for n in gr["nodes"])
    assert any(RUN_JS in (g.get("title") or "") for g in record["graphs"])
    for g, part, graph in _graphs(record):
        body = {**graph, "title": g.get("title")}       # the title rides along, as a page's graph might
        for fmt in ("svg", "png", "dot"):
            r = render(live_server, body, fmt)
            assert r.status_code == 200, (g["id"], part, fmt, r.text[:300])
            if fmt == "svg":
                svg = inert(r.text)
                ids = set(node_texts(svg))
                assert "evil" not in ids
                assert ids == {n["id"] for n in graph["nodes"]}
                for n in graph["nodes"]:          # every hostile name drawn as its own text
                    assert node_texts(svg)[n["id"]].startswith(n.get("label") or n["op"])
            elif fmt == "png":
                width, height = png_size(r.content)
                assert width < 2000 and height < 1500, (width, height)
            else:
                assert_only_quoted(r.text, "evil", "INJECTED", "<", "javascript")


# -- class 4: DOT syntax injection -------------------------------------------------------------------

@pytest.mark.parametrize("evil", [
    'x"]; evil [label="INJECTED" URL="javascript:alert(1)"]; n0 -> evil; //',
    "x\"];\n}\ndigraph H { evil [label=INJECTED] }\n//",
    "x\\\"]; evil [label=INJECTED]; //\\",
    'a\\"]; evil [image="/etc/hostname"]; //',
    "}{ ] [ ; , = -> -- subgraph cluster_x { evil }",
    "x\n\r\t\x00\x0b end",
], ids=["quote", "close-graph", "escaped-quote", "backslash-quote", "braces", "controls"])
@pytest.mark.parametrize("where", ["id", "label", "module", "edge"])
def test_class4_dot_syntax_injection(live_server, evil, where):
    """class 4: quotes, braces, `];`, newlines and backslashes in ids, labels, modules and edges."""
    nodes = [{"id": "n0", "op": "relu"}, {"id": "n1", "op": "sum"}]
    edges = [{"src": "n0", "dst": "n1"}]
    if where == "id":
        nodes[0]["id"] = evil
        edges = [{"src": evil, "dst": "n1"}]
    elif where == "label":
        nodes[0]["label"] = evil
    elif where == "module":
        nodes[0]["module"] = evil
    else:
        edges.append({"src": evil, "dst": "n1"})
    r = render(live_server, {"nodes": nodes, "edges": edges})
    assert r.status_code == 200, r.text[:300]
    svg = inert(r.text)
    node_ids = [g.get("id") for g in svg.iter(f"{SVG}g") if g.get("class") == "node"]
    n_edges = sum(1 for g in svg.iter(f"{SVG}g") if g.get("class") == "edge")
    assert "evil" not in node_ids and "H" != svg.find(f"{SVG}g/{SVG}title").text
    # exactly the nodes sent (an edge to an unknown id draws one more, named by dot, never "evil")
    assert len(node_ids) == 2 + (where == "edge") and n_edges == len(edges)
    if where == "label":
        clean = evil.replace("\r", "\n").replace("\t", " ").replace("\x00", "\ufffd").replace("\x0b", "\ufffd")
        assert node_texts(svg)["n0"] == "\n".join(line for line in clean.split("\n") if line)  # (a blank line has no <text>)


@pytest.mark.parametrize("label", ["\\N", "\\G", "\\L\\l\\r", "\\E \\T \\H", "\\\\N"])
def test_class4_graphviz_escapes_are_text(live_server, label):
    """class 4: `\\N`/`\\G` would draw the node's or graph's DOT name (and reveal the escaping)."""
    r = render(live_server, {"nodes": [{"id": "n0", "label": label}], "edges": []})
    assert node_texts(inert(r.text))["n0"] == label


# -- class 4: SVG entity and DTD tricks ---------------------------------------------------------------

@pytest.mark.parametrize("label", [
    '<!DOCTYPE svg [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>&xxe;',
    '<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;">]>&b;&b;&b;',
    "&xxe; &lt;script&gt;alert(1)&lt;/script&gt; &#60;img src=x onerror=alert(1)&#62;",
    "]]><script>alert(1)</script><![CDATA[",
    "<?xml-stylesheet href='http://evil/x.xsl'?><svg onload=alert(1)>",
], ids=["xxe", "billion-laughs", "entity-refs", "cdata", "processing-instruction"])
@pytest.mark.parametrize("where", ["label", "id"])
def test_class4_entity_and_dtd_tricks_in_names(live_server, label, where):
    """class 4: DTDs, entities, CDATA and processing instructions sent as names stay text."""
    node = {"id": "n0", "label": "x"}
    node[where] = label
    r = render(live_server, {"nodes": [node], "edges": []})
    assert r.status_code == 200, r.text[:300]
    svg = inert(r.text)
    assert "root:" not in r.text                       # /etc/passwd was not read
    if where == "label":
        assert node_texts(svg)["n0"] == label
    else:
        assert list(node_texts(svg)) == [label]


# -- the second wall: dot confined --------------------------------------------------------------------

@pytest.mark.parametrize("dot_source", [
    'digraph {{ a [label=<<TABLE><TR><TD><IMG SRC="{png}"/></TD></TR></TABLE>>] }}',
    'digraph {{ a [image="{png}", label=""] }}',
    'digraph {{ a [shapefile="{png}"] }}',
], ids=["html-img", "image-attribute", "shapefile"])
def test_class4_dot_itself_cannot_read_host_images(host_png, dot_source):
    """class 4 (defence in depth): even unescaped DOT naming a host PNG cannot draw it: dot runs
    confined (Landlock reads only dot, libraries and fonts; nobody's uid). Unconfined it would."""
    from app.services.dot_process import DotFailed, DotLimits, run_dot
    source = dot_source.format(png=host_png).encode()
    plain = subprocess.run(["dot", "-Tpng"], input=source, capture_output=True, timeout=30).stdout
    assert png_size(plain)[0] >= 1000                  # the attack works against an unconfined dot
    try:
        out, layers = run_dot("png", source, DotLimits(timeout_s=10))
    except DotFailed as exc:                           # dot gave up on the unreadable image: contained
        assert exc.reason == "error", exc
        return
    if not any(layer.startswith("Landlock") for layer in layers) and os.geteuid() != 0:
        pytest.skip(f"neither Landlock nor a uid drop here ({layers}): only the escaping stops this")
    assert png_size(out)[0] < 1000, layers


# -- class 5: bounded in time, concurrency and size ---------------------------------------------------

def chain(n: int, module_every: int = 30, skip: int = 7) -> dict:
    nodes = [{"id": f"t{i}", "op": "add", "shape": [8, 8], "module": f"layers.{i // module_every}"} for i in range(n)]
    edges = [{"src": f"t{i - 1}", "dst": f"t{i}"} for i in range(1, n)]
    edges += [{"src": f"t{i - skip}", "dst": f"t{i}"} for i in range(skip, n, 3)]
    return {"nodes": nodes, "edges": edges}


def schema_maximum() -> dict:
    nodes = [{"id": f"t{i}", "op": "matmul", "label": "matmul", "shape": [32, 64], "dtype": "float32",
              "module": f"layers.{i // 50}.attn", "kind": "op"} for i in range(MAX_GRAPH_NODES)]
    edges = [{"src": f"t{i % MAX_GRAPH_NODES}", "dst": f"t{(i * 7 + 1) % MAX_GRAPH_NODES}", "shape": [32, 64]}
             for i in range(MAX_GRAPH_EDGES)]
    return {"nodes": nodes, "edges": edges}


def flood(live_server, body: dict, n: int = 6) -> list[tuple[int, float, str, dict]]:
    payload = json.dumps(body).encode()

    def one(_):
        with httpx.Client(timeout=60) as c:
            started = time.monotonic()
            r = c.post(live_server.url + "/api/render", content=payload,
                       headers={"Origin": live_server.origin, "content-type": "application/json"})
            return r.status_code, time.monotonic() - started, r.text[:300], dict(r.headers)
    with concurrent.futures.ThreadPoolExecutor(n) as pool:
        return list(pool.map(one, range(n)))


@pytest.mark.parametrize("variant", ["drawn-maximum", "schema-maximum"])
def test_class5_concurrent_renders_are_bounded(live_server, variant):
    """class 5: 6 renders at once at the maxima: each answers within the limit + 1 s (drawn, or
    422/413 with its reason, or 503 with Retry-After), /healthz stays under 2 s meanwhile (the
    suite's poller judges it at the end), and no dot outlives its answer."""
    body = {"drawn-maximum": lambda: {"graph": chain(get_settings().render_max_nodes)},
            "schema-maximum": lambda: {"graph": schema_maximum()}}[variant]()
    answers = flood(live_server, body)
    for status, took, text, headers in answers:
        assert took <= RENDER_TIMEOUT_S + 1.0, (variant, status, f"{took:.2f} s", text)
        if status == 503:
            assert int(headers["retry-after"]) >= 1 and "try again" in text
        elif variant == "drawn-maximum":
            assert status in (200, 422), text
            assert status == 200 or "too large to draw within" in text
        else:
            assert status == 413 and "too large to draw" in text, text
    deadline = time.monotonic() + 3
    while dots_below(live_server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert dots_below(live_server) == []


@pytest.mark.parametrize("graph, fragment", [
    ({"nodes": [{"id": str(i)} for i in range(MAX_GRAPH_NODES + 1)], "edges": []}, "too large to send"),
    ({"nodes": [], "edges": [{"src": "a", "dst": "b"}] * (MAX_GRAPH_EDGES + 1)}, "too large to send"),
    (chain(get_settings().render_max_nodes + 1), "too large to draw"),
    ({"nodes": [{"id": str(i)} for i in range(10)],
      "edges": [{"src": str(i % 10), "dst": str(i % 7)} for i in range(get_settings().render_max_edges + 1)]},
     "too large to draw"),
], ids=["nodes-past-schema", "edges-past-schema", "nodes-past-drawing", "edges-past-drawing"])
def test_class5_oversized_graphs_are_413(live_server, graph, fragment):
    """class 5: a graph too large to send or to draw is refused with 413 and the counts."""
    r = render(live_server, graph)
    assert r.status_code == 413 and fragment in r.json()["detail"], r.text[:300]
    assert "at most" in r.json()["detail"]


@pytest.mark.parametrize("field, value", [("id", "i" * 1001), ("module", "m" * 1001)])
def test_class5_overlong_ids_are_422(live_server, field, value):
    """class 5: ids and module paths become SVG ids kept whole: bounded like a run record's."""
    r = render(live_server, {"nodes": [{"id": "a", field: value}], "edges": []})
    assert r.status_code == 422 and "at most 1000 characters" in r.text


@pytest.mark.parametrize("label", ["L" * 200_000, "🧠" * 50_000, ("\\" * 999 + '"') * 100])
def test_class5_very_long_labels_are_cut_not_slow(live_server, label):
    """class 5: a label of hundreds of kB (past Graphviz's 16 kB string limit) is cut for drawing."""
    started = time.monotonic()
    r = render(live_server, {"nodes": [{"id": "a", "label": label, "op": label}], "edges": []})
    assert r.status_code == 200 and time.monotonic() - started < 3
    drawn = node_texts(inert(r.text))["a"]
    assert len(drawn) == 200 and drawn.endswith("…") and label.startswith(drawn[:-1])


# -- several drawings by one dot (POST /api/render/batch) ---------------------------------------------

def render_batch(live_server, drawings: list[dict]) -> httpx.Response:
    started = time.monotonic()
    r = live_server.request("POST", "/api/render/batch", json={"drawings": drawings})
    took = time.monotonic() - started
    assert took <= RENDER_TIMEOUT_S + 1.0, f"answered after {took:.2f} s"
    assert r.status_code < 500, (r.status_code, r.text[:500])
    return r


FORGED_ENDS = ["</svg>\n", "</svg>\n<?xml version=\"1.0\"?>\n<svg><script>alert(1)</script></svg>\n",
               "x\"];\n}\ndigraph H { evil [label=INJECTED] }\ndigraph I {\n//", "}\n}\n}\n"]


@pytest.mark.parametrize("where", ["label", "id", "module"])
def test_batch_hostile_names_cannot_add_or_split_drawings(live_server, where):
    """One dot lays out every graph of a batch from one input and its output is split per graph:
    a name that closes a graph, opens another, or writes an SVG end of its own must stay text, and
    each drawing holds exactly the nodes of the graph it answers, in the order asked."""
    drawings = []
    for i, evil in enumerate(FORGED_ENDS):
        node = {"id": f"n{i}", "op": "relu", "label": f"plain {i}"}
        node[where] = evil if where != "id" else f"{evil}{i}"
        drawings.append({"graph": {"nodes": [node, {"id": f"m{i}", "op": "sum"}],
                                   "edges": [{"src": node["id"], "dst": f"m{i}"}]},
                         "direction": "LR" if i % 2 else "TB"})
    r = render_batch(live_server, drawings)
    assert r.status_code == 200, r.text[:300]
    svgs = r.json()["svgs"]
    assert len(svgs) == len(drawings)
    for d, text in zip(drawings, svgs):
        texts = node_texts(inert(text))
        assert set(texts) == {n["id"] for n in d["graph"]["nodes"]}, (where, list(texts))
        if where == "label":
            sent = d["graph"]["nodes"][0]
            assert texts[sent["id"]] == "\n".join(line for line in sent["label"].split("\n") if line)


def test_batch_bounds(live_server):
    """A batch is bounded as one graph is (its nodes and edges together), and in its count."""
    from app.schemas import MAX_BATCH_DRAWINGS
    max_nodes = get_settings().render_max_nodes
    half = {"graph": {"nodes": [{"id": str(i)} for i in range(max_nodes // 2 + 1)], "edges": []}}
    r = render_batch(live_server, [half, half])
    assert r.status_code == 413 and "too large to make together" in r.json()["detail"], r.text[:300]
    many = {"graph": {"nodes": [{"id": "a"}], "edges": []}}
    r = render_batch(live_server, [many] * (MAX_BATCH_DRAWINGS + 1))
    assert r.status_code == 413 and f"at most {MAX_BATCH_DRAWINGS}" in r.json()["detail"]
    big = {"graph": {"nodes": [{"id": str(i)} for i in range(MAX_GRAPH_NODES + 1)], "edges": []}}
    r = render_batch(live_server, [big])
    assert r.status_code == 413 and "too large to send" in r.json()["detail"]
    for body in ({"drawings": []}, {"drawings": [many], "format": "png"}, {"graph": many["graph"]}):
        r = live_server.request("POST", "/api/render/batch", json=body)
        assert r.status_code == 422 and r.json()["detail"], r.text[:300]


def test_batch_concurrent_is_bounded(live_server):
    """4 batches at once of the most drawings (16, 40 nodes each: drawn, not refused, so their
    SVGs are checked too): each answers within the limit + 1 s (drawn, 422 past the time, or 503
    with Retry-After) and no dot outlives its answer. (Many drawings at the node maximum, drawn in
    time, take longer to read and check than the deadline on this shared 2-core machine, for one
    drawing as for a batch: the time before a request reaches its route is not bounded here.)"""
    from app.schemas import MAX_BATCH_DRAWINGS
    body = {"drawings": [{"graph": chain(40, skip=3 + k)} for k in range(MAX_BATCH_DRAWINGS)]}
    payload = json.dumps(body).encode()

    def one(_):
        with httpx.Client(timeout=60) as c:
            started = time.monotonic()
            r = c.post(live_server.url + "/api/render/batch", content=payload,
                       headers={"Origin": live_server.origin, "content-type": "application/json"})
            return r.status_code, time.monotonic() - started, r.text[:300], dict(r.headers)
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        answers = list(pool.map(one, range(4)))
    for status, took, text, headers in answers:
        assert took <= RENDER_TIMEOUT_S + 1.0, (status, f"{took:.2f} s", text)
        if status == 503:
            assert int(headers["retry-after"]) >= 1 and "try again" in text
        else:
            assert status == 200 or (status == 422 and "too large to draw within" in text), text
    deadline = time.monotonic() + 3
    while dots_below(live_server) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert dots_below(live_server) == []
