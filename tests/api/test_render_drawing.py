"""What /api/render draws: the graph it is sent, node for node (folding is the page's,
static/js/collapse.js, tested in tests/browser/test_js_units.py)."""
import pytest


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


def test_scalars_are_labelled_in_the_pages_language(client):
    graph = {"nodes": [{"id": "a", "op": "sum", "shape": []}], "edges": []}
    dot = client.post("/api/render", json={"graph": graph, "format": "dot", "lang": "zh-CN"}).text
    assert dot.count("标量") == 1 and "scalar" not in dot
    assert client.post("/api/render", json={"graph": graph, "lang": "fr"}).status_code == 422


@pytest.mark.parametrize("nodes", [
    [{"id": "x", "kind": "module"}],                                         # a module node without ":"
    [{"id": f"module:a.{i}", "kind": "module", "members": 5, "signature": ["s"]} for i in range(3)],
    [{"id": f"module:a.{i}", "kind": "module", "members": {"m": 1}, "signature": {"k": 1}} for i in range(4)],
])
def test_module_nodes_sent_by_a_request_are_drawn_not_a_500(client, nodes):
    r = client.post("/api/render", json={"graph": {"nodes": nodes, "edges": []}})
    assert r.status_code == 200, r.text[:300]


def test_the_server_draws_what_it_is_sent_and_refuses_the_old_folding_keys(client):
    graph = {"nodes": [{"id": f"n{i}", "op": "add", "module": f"layers.{i // 3}"} for i in range(9)],
             "edges": [{"src": f"n{i}", "dst": f"n{i + 1}"} for i in range(8)]}
    svg = client.post("/api/render", json={"graph": graph}).text
    assert all(f'id="n{i}"' in svg for i in range(9))
    for key, value in [("collapse", ["layers.0"]), ("auto_collapse", True), ("fold_repeats", True)]:
        r = client.post("/api/render", json={"graph": graph, key: value})
        assert r.status_code == 422 and key in r.text, r.text[:300]
