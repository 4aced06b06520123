"""POST /api/run through the sandbox child, /api/render and /healthz."""

SEED = "import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\nz = y.sum()\nz.backward()\nprint(x.grad)\n"


def test_healthz(client):
    assert client.get("/healthz").json() == {"status": "ok"}


def test_run_returns_the_run_record(client):
    r = client.post("/api/run", json={"code": SEED})
    assert r.status_code == 200
    rec = r.json()
    assert rec["ok"] and rec["stdout"] == "tensor([2., 2.])\n"
    g = rec["graphs"][0]
    assert g["forward"]["nodes"] and g["backward"]["nodes"] and g["steps"]
    assert rec["elapsed_ms"] > 0


def test_run_reports_syntax_error_with_line(client):
    rec = client.post("/api/run", json={"code": "x = 1\ny = (\n"}).json()
    assert not rec["ok"] and rec["error"]["kind"] == "syntax_error" and rec["error"]["line"] in (2, 3)


def test_run_reports_runtime_error_with_user_line(client):
    rec = client.post("/api/run", json={"code": "a = 1\nb = a / 0\n"}).json()
    assert rec["error"]["kind"] == "runtime_error"
    assert rec["error"]["type"] == "ZeroDivisionError" and rec["error"]["line"] == 2
    assert "engine" not in rec["error"]["traceback"]


def test_run_times_out(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "1")
    rec = client.post("/api/run", json={"code": "while True:\n    pass\n"}).json()
    assert rec["error"]["kind"] == "timeout"


def test_malformed_request_is_422(client):
    assert client.post("/api/run", content=b"{not json", headers={"content-type": "application/json"}).status_code == 422


def test_render_svg_uses_graph_node_ids(client):
    rec = client.post("/api/run", json={"code": SEED}).json()
    graph = rec["graphs"][0]["forward"]
    r = client.post("/api/render", json={"graph": graph, "format": "svg"})
    assert r.status_code == 200 and r.headers["content-type"].startswith("image/svg+xml")
    for node in graph["nodes"]:
        assert f'id="{node["id"]}"' in r.text


def test_render_dot(client):
    r = client.post("/api/render", json={"graph": {"nodes": [{"id": "a"}], "edges": []}, "format": "dot"})
    assert r.status_code == 200 and "digraph" in r.text

