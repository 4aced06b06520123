"""GET /metrics (Prometheus text, for the operator only) and the request id that every log line
of a request carries, into the run's worker thread (app/logs.py, app/services/metrics.py)."""
import json
import logging

import pytest
from prometheus_client.parser import text_string_to_metric_families

TOKEN = "metrics-secret-123"


@pytest.fixture
def scraper(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_METRICS_TOKEN", TOKEN)
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "1")

    def scrape() -> dict:
        r = client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/plain")
        return {(s.name, tuple(sorted(s.labels.items()))): s.value
                for family in text_string_to_metric_families(r.text) for s in family.samples}
    return scrape


def _get(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_runs_kills_queue_render_and_stores_are_counted(client, scraper):
    before = scraper()
    assert client.post("/api/run", json={"code": "print(1)"}).json()["ok"]
    assert client.post("/api/run", json={"code": "def f(:\n"}).json()["error"]["kind"] == "syntax_error"
    assert client.post("/api/run", json={"code": "while True:\n    pass\n"}).json()["error"]["kind"] == "timeout"
    assert client.post("/api/render", json={"graph": {"nodes": [], "edges": []}, "format": "dot"}).status_code == 200
    assert client.post("/api/snippets", json={"code": "x = 1\n"}).status_code == 201
    after = scraper()
    for outcome in ("ok", "syntax_error", "timeout"):
        assert _get(after, "dagscope_runs_total", outcome=outcome) == _get(before, "dagscope_runs_total", outcome=outcome) + 1
    assert _get(after, "dagscope_sandbox_kills_total", reason="timeout") == \
        _get(before, "dagscope_sandbox_kills_total", reason="timeout") + 1
    assert _get(after, "dagscope_run_duration_seconds_count") == _get(before, "dagscope_run_duration_seconds_count") + 3
    assert _get(after, "dagscope_render_seconds_count", route="/api/render") >= 1
    assert ("dagscope_run_queue_depth", ()) in after and ("dagscope_runs_running", ()) in after
    assert _get(after, "dagscope_store_bytes", store="snippets") >= len("x = 1\n") + 2
    assert ("dagscope_store_bytes", (("store", "tensor_values"),)) in after


def test_metrics_need_their_own_token_not_the_classrooms(client, monkeypatch):
    assert client.get("/metrics").status_code == 403          # no token set: loopback only (TestClient is not)
    monkeypatch.setenv("DAGSCOPE_METRICS_TOKEN", TOKEN)
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "classroom-token")
    assert client.get("/metrics", headers={"Authorization": "Bearer classroom-token"}).status_code == 403
    assert client.get("/metrics", headers={"Authorization": "Bearer wrong"}).status_code == 403
    assert client.get("/metrics", headers={"Authorization": f"Bearer {TOKEN}"}).status_code == 200


def test_the_request_id_follows_a_run_into_its_thread_and_back(client):
    from app.logs import JSONFormatter
    lines = []

    class Keep(logging.Handler):
        def emit(self, record):
            lines.append(json.loads(JSONFormatter().format(record)))
    handler = Keep()
    logger = logging.getLogger("dagscope.runs")
    logger.addHandler(handler)
    old_level = logger.level
    logger.setLevel(logging.INFO)
    try:
        r = client.post("/api/run", json={"code": "print(2)"}, headers={"X-Request-ID": "lesson-7-abc123"})
    finally:
        logger.removeHandler(handler)
        logger.setLevel(old_level)
    assert r.headers["x-request-id"] == "lesson-7-abc123"
    mine = [line for line in lines if line["request_id"] == "lesson-7-abc123"]
    # the middle line is the supervisor's report, under the id it was given and echoed back
    assert [line["message"].split(" ")[:2] for line in mine] == [["run", "admitted"], ["sandbox", "finished:"],
                                                                 ["run", "finished:"]]
    assert mine[1]["exit_code"] == 0 and mine[1]["logger"] == "dagscope.runs.sandbox"
    assert mine[-1]["outcome"] == "ok" and mine[-1]["elapsed_ms"] > 0
    made = client.get("/healthz", headers={"X-Request-ID": "bad id\twith tab"}).headers["x-request-id"]
    assert made != "bad id\twith tab" and len(made) == 16                # not a token: a new id
