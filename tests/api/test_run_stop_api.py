"""POST /api/run/stop: the caller stops its own run, and only its own. The stop key is a secret the
page makes per run; another computer holding the same key, a wrong key, an ended run's key and
hostile bodies are all refused without touching anyone's run (never a 500)."""
import json
import secrets
import threading
import time

import pytest
from fastapi.testclient import TestClient

from app.main import create_app
from app.services import runs

FOREVER = "import time\nwhile True:\n    time.sleep(0.01)\n"


def key() -> str:
    return secrets.token_urlsafe(16)            # what the page makes: 128 bits, 22 characters


@pytest.fixture
def app(monkeypatch):
    monkeypatch.setenv("DAGSCOPE_RUN_TIMEOUT", "30")   # a run that answers early was stopped, not timed out
    made = create_app()
    with TestClient(made):                    # the app's lifespan (warm zygote) for every client below
        yield made


def student(app, address: str) -> TestClient:
    return TestClient(app, client=(address, 50000))


def start_run(client: TestClient, stop_key: str, code: str = FOREVER) -> tuple[threading.Thread, dict]:
    out: dict = {}

    def post():
        out["response"] = client.post("/api/run", json={"code": code, "stop_key": stop_key})
    thread = threading.Thread(target=post)
    thread.start()
    deadline = time.monotonic() + 20
    while not any(k == stop_key for _, k in list(runs._stoppable)):   # the server has taken it
        assert time.monotonic() < deadline and thread.is_alive(), out.get("response")
        time.sleep(0.01)
    return thread, out


def test_the_owner_stops_its_run_and_gets_a_stopped_record(app):
    alice, k = student(app, "10.0.0.1"), key()
    thread, out = start_run(alice, k)
    time.sleep(0.5)                               # running, not only queued
    started = time.monotonic()
    r = alice.post("/api/run/stop", json={"stop_key": k})
    assert r.status_code == 200 and r.json() == {"stopped": True}
    thread.join(timeout=15)
    assert not thread.is_alive() and time.monotonic() - started < 15
    record = out["response"].json()
    assert out["response"].status_code == 200 and record["error"]["kind"] == "stopped" and not record["ok"]
    # the key is forgotten with its run: stopping again finds nothing
    assert alice.post("/api/run/stop", json={"stop_key": k}).status_code == 404


def test_another_computer_with_the_same_key_cannot_stop_it(app):
    alice, mallory, k = student(app, "10.0.0.2"), student(app, "10.0.0.66"), key()
    thread, out = start_run(alice, k)
    r = mallory.post("/api/run/stop", json={"stop_key": k})
    assert r.status_code == 404 and "no run of yours" in r.json()["detail"]
    # a guess from the owner's own address with another key stops nothing either
    assert alice.post("/api/run/stop", json={"stop_key": key()}).status_code == 404
    time.sleep(0.5)
    assert thread.is_alive(), "a refused stop ended the run"
    assert alice.post("/api/run/stop", json={"stop_key": k}).status_code == 200
    thread.join(timeout=15)
    assert out["response"].json()["error"]["kind"] == "stopped"


def test_a_key_in_use_is_refused_for_a_second_run(app, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_UNLIMITED_CLIENTS", "10.0.0.3")   # two runs in flight are allowed
    alice, k = student(app, "10.0.0.3"), key()
    thread, out = start_run(alice, k)
    r = alice.post("/api/run", json={"code": "print(1)\n", "stop_key": k})
    assert r.status_code == 409
    alice.post("/api/run/stop", json={"stop_key": k})
    thread.join(timeout=15)


def test_a_run_without_a_key_cannot_be_stopped_and_still_runs(app):
    r = student(app, "10.0.0.4").post("/api/run", json={"code": "print(2)\n"})
    assert r.status_code == 200 and r.json()["stdout"] == "2\n"


@pytest.mark.parametrize("body", [
    {}, {"stop_key": None}, {"stop_key": 7}, {"stop_key": ["a" * 22]}, {"stop_key": "short"},
    {"stop_key": "a" * 65}, {"stop_key": "a" * 100_000}, {"stop_key": "../../" + "a" * 22},
    {"stop_key": "a" * 21 + "\u00e9"}, {"stop_key": "a" * 22 + "\n"}, {"stop_key": "\ud800" * 22},
    {"stop_key": "a" * 22, "client": "10.0.0.1"}, [], "a" * 22,
])
def test_hostile_stop_bodies_are_refused_clearly(app, body):
    r = student(app, "10.0.0.5").post("/api/run/stop", content=json.dumps(body),   # \ud800 escaped
                                      headers={"content-type": "application/json"})
    assert r.status_code in (404, 422), r.text


def test_hostile_stop_keys_on_a_run_are_422(app):
    for bad in ("short", "a" * 65, "a b" * 10, 12345678901234567890123):
        r = student(app, "10.0.0.6").post("/api/run", json={"code": "print(1)\n", "stop_key": bad})
        assert r.status_code == 422, r.text


def test_stop_needs_the_access_token_in_token_mode(app, monkeypatch):
    monkeypatch.setenv("DAGSCOPE_ACCESS_TOKEN", "classroom-secret")
    outsider = student(app, "10.0.0.7")
    assert outsider.post("/api/run/stop", json={"stop_key": key()}).status_code == 401
    insider = TestClient(app, client=("10.0.0.7", 50000), headers={"Authorization": "Bearer classroom-secret"})
    assert insider.post("/api/run/stop", json={"stop_key": key()}).status_code == 404


def test_the_service_refuses_bad_keys_without_a_lookup():
    assert runs.stop("10.0.0.8", "x") is False
    assert runs.stop("10.0.0.8", "a" * 22) is False
    with pytest.raises(ValueError):
        runs.submit("10.0.0.8", "print(1)\n", {}, stop_key="bad key")
