"""Collapsing modules and folding repeated blocks in the drawn graph."""
import pytest

from app.services.graph_view import collapse, fold_repeats


def _stack(n_blocks: int) -> dict:
    nodes = [{"id": "x", "op": "input", "kind": "input"}]
    edges, prev = [], "x"
    for i in range(n_blocks):
        for j, op in enumerate(("matmul", "add", "relu")):
            nid = f"b{i}_{j}"
            nodes.append({"id": nid, "op": op, "module": f"layers.{i}"})
            edges.append({"src": prev, "dst": nid})
            prev = nid
    nodes.append({"id": "out", "op": "sum", "kind": "output", "module": "head"})
    edges.append({"src": prev, "dst": "out"})
    return {"nodes": nodes, "edges": edges}


def test_collapse_one_module_keeps_the_rest():
    g = collapse(_stack(2), modules=["layers.0"])
    ids = [n["id"] for n in g["nodes"]]
    assert "module:layers.0" in ids and "b1_0" in ids and "b0_0" not in ids
    box = next(n for n in g["nodes"] if n["id"] == "module:layers.0")
    assert box["members"] == ["b0_0", "b0_1", "b0_2"] and "3 ops" in box["label"]
    assert {"src": "x", "dst": "module:layers.0"} in g["edges"]
    assert {"src": "module:layers.0", "dst": "b1_0"} in g["edges"]


def test_auto_collapse_only_large_graphs():
    small = _stack(2)
    assert collapse(small, auto=True) is small
    big = _stack(60)
    g = collapse(big, auto=True)
    assert len(g["nodes"]) < 20 and all(n["kind"] in ("input", "module") for n in g["nodes"])


def test_expanding_a_module_opens_one_level():
    g = collapse(_stack(60), auto=True, expanded=["layers"])
    assert any(n["id"] == "module:layers.7" for n in g["nodes"])


def test_repeated_blocks_fold():
    g = fold_repeats(collapse(_stack(12), auto=False, modules=[f"layers.{i}" for i in range(12)]))
    folded = [n for n in g["nodes"] if n["id"].startswith("fold:")]
    assert len(folded) == 1 and "Block ×12" in folded[0]["label"]
    assert len(folded[0]["members"]) == 36
    assert {"src": "x", "dst": folded[0]["id"]} in g["edges"]


def test_render_endpoint_collapses(client):
    r = client.post("/api/render", json={"graph": _stack(12), "format": "svg",
                                         "collapse": [f"layers.{i}" for i in range(12)]})
    assert r.status_code == 200
    assert "Block ×12" in r.text and 'id="b3_1"' not in r.text


def test_ids_with_colons_and_dots_are_nodes_not_ports(client):
    graph = {"nodes": [{"id": "module:fc1", "op": "module", "kind": "module"}, {"id": "%3.1", "op": "relu"}],
             "edges": [{"src": "module:fc1", "dst": "%3.1"}]}
    dot = client.post("/api/render", json={"graph": graph, "format": "dot"}).text
    assert 'id="module:fc1"' in dot and "n0 -> n1" in dot
    svg = client.post("/api/render", json={"graph": graph, "format": "svg"}).text
    assert 'id="module:fc1"' in svg and 'id="%3.1"' in svg
    assert svg.count('class="edge"') == 1


def test_scalars_are_labelled_scalar(client):
    dot = client.post("/api/render", json={"graph": {"nodes": [{"id": "a", "op": "sum", "shape": []}],
                                                     "edges": []}, "format": "dot"}).text
    assert "scalar" in dot


@pytest.mark.parametrize("nodes", [
    [{"id": "x", "kind": "module"}],                                         # a module node without ":"
    [{"id": f"module:a.{i}", "kind": "module", "members": 5, "signature": ["s"]} for i in range(3)],
    [{"id": f"module:a.{i}", "kind": "module", "members": {"m": 1}, "signature": {"k": 1}} for i in range(4)],
])
def test_module_nodes_sent_by_a_request_are_drawn_not_a_500(client, nodes):
    r = client.post("/api/render", json={"graph": {"nodes": nodes, "edges": []}})
    assert r.status_code == 200, r.text[:300]
