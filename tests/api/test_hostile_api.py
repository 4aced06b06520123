"""Hostile requests to the API: huge and malformed bodies, access tokens, rate limits, and a
program that tries to kill the server, each answered with the right status and the server fine after."""
import time

import pytest


@pytest.fixture(autouse=True)
def fast_runs(monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "2")


def test_huge_body_with_length_is_413_before_reading(client):
    started = time.monotonic()
    r = client.post("/api/run", content=b"x" * 9_000_000, headers={"content-type": "application/json"})
    assert r.status_code == 413 and "larger than" in r.json()["detail"]
    assert time.monotonic() - started < 2


def test_huge_chunked_body_is_413(client):
    def chunks():
        for _ in range(200):
            yield b"x" * 100_000
    r = client.post("/api/run", content=chunks(), headers={"content-type": "application/json"})
    assert r.status_code == 413


def test_code_over_the_limit_is_413(client):
    assert client.post("/api/run", json={"code": "#" * 100_001}).status_code == 413



def test_options_are_typed_and_bounded(client):
    # Options are a handful of named switches: unknown keys and out-of-range values are 422.
    assert client.post("/api/run", json={"code": "", "options": {"x": "y" * 20_000}}).status_code == 422
    assert client.post("/api/run", json={"code": "", "options": {"max_graphs": 10_000}}).status_code == 422
    assert client.post("/api/run", json={"code": "", "options": {"max_graphs": "x"}}).status_code == 422
    assert client.post("/api/run", json={"code": "print(1)", "options": {"max_graphs": 2}}).json()["ok"]


@pytest.mark.parametrize("body", [b"{not json", b"[]", b'{"code": 5}', b'{"code": "x", "options": []}',
                                  b'{"options": {}}', b"\xff\xfe"])
def test_malformed_requests_are_4xx(client, body):
    r = client.post("/api/run", content=body, headers={"content-type": "application/json"})
    assert 400 <= r.status_code < 500


def test_a_lone_surrogate_in_code_is_answered(client):
    r = client.post("/api/run", content=b'{"code": "print(1)\\n\\ud800"}', headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.json()["ok"] is False


def test_killing_the_parent_is_refused_and_the_server_stays_up(client):
    rec = client.post("/api/run", json={"code": "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)"}).json()
    assert rec["error"]["kind"] == "security_violation"
    assert client.get("/healthz").json() == {"status": "ok"}
    assert client.post("/api/run", json={"code": "print(1 + 1)"}).json()["stdout"] == "2\n"


def test_timeout_over_the_api(client):
    started = time.monotonic()
    rec = client.post("/api/run", json={"code": "while True:\n    pass"}).json()
    assert rec["error"] == {**rec["error"], "kind": "timeout", "message": "stopped after 2 s"}
    assert time.monotonic() - started < 5


def test_access_token_guards_everything_but_health(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "s3cret")
    assert client.get("/healthz").status_code == 200
    assert client.post("/api/run", json={"code": "print(1)"}).status_code == 401
    assert client.get("/?token=wrong").status_code == 401
    r = client.get("/?token=s3cret")
    assert r.status_code == 200 and "dagscope_token=s3cret" in r.headers["set-cookie"]
    assert client.post("/api/run", json={"code": "print(1)"}).json()["stdout"] == "1\n"  # the cookie
    client.cookies.clear()
    assert client.post("/api/run", json={"code": "print(2)"},
                       headers={"Authorization": "Bearer s3cret"}).status_code == 200


def test_per_client_rate_limit_is_429_with_retry_after(client, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RATE_PER_MIN", "6")
    monkeypatch.setenv("DAGSCOPE_RATE_BURST", "2")
    codes = [client.post("/api/run", json={"code": "pass"}) for _ in range(3)]
    assert [r.status_code for r in codes] == [200, 200, 429]
    assert int(codes[2].headers["Retry-After"]) >= 1
    assert client.get("/healthz").status_code == 200


def test_a_lone_surrogate_in_the_output_is_answered(client):
    r = client.post("/api/run", json={"code": "print('a\\ud800b')"})
    assert r.status_code == 200 and r.json()["stdout"] == "a?b\n"


def test_a_lone_surrogate_echoed_in_a_validation_error_is_answered(client):
    r = client.post("/api/run", content=b'{"code": "1", "options": {"\\ud800": 1}}',
                    headers={"content-type": "application/json"})
    assert r.status_code == 422


@pytest.mark.parametrize("url, body", [
    ("/api/snippets", b'{"code": "print(\'\\ud800\')", "state": {"tab": "\\udfff"}}'),
    ("/api/render", b'{"graph": {"nodes": [{"id": "\\ud800", "label": "x\\udc00"}], "edges": []}, "format": "svg"}'),
])
def test_lone_surrogates_in_stored_or_drawn_text_are_replaced(client, url, body):
    r = client.post(url, content=body, headers={"content-type": "application/json"})
    assert r.status_code in (200, 201)
    if url == "/api/snippets":
        stored = client.get(f"/api/snippets/{r.json()['id']}").json()
        assert stored["code"] == "print('\ufffd')" and stored["state"] == {"tab": "\ufffd"}
