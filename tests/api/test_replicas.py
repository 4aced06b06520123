"""Two replicas of the app (two `python -m app` processes, each with its own data folder and
sandbox pool) sharing one PostgreSQL: whichever replica gets a request answers it, and stopping
one mid-run (SIGTERM) loses nothing it acknowledged (docs/deploy.md).

Expensive by nature (two servers with their zygotes, ~10 s to start under load): one pair per
module, and the drain test, which stops replica A, runs last."""
from __future__ import annotations

import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import httpx
import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
TENSOR_CODE = """import torch
torch.manual_seed(0)
w = torch.randn(30, 20, requires_grad=True)
loss = (torch.randn(8, 30) @ w).tanh().sum()
loss.backward()
open("weights.txt", "w").write("kept on A, served by B\\n")
"""
SLOW_CODE = """import time
import torch
w = torch.ones(30, 20, requires_grad=True)
(w * 2).sum().backward()
time.sleep(2.5)
open("late.txt", "w").write("written while A was stopping\\n")
print("finished")
"""


def _free_port() -> int:
    import socket
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Replica:
    def __init__(self, name: str, database_url: str, folder: Path, **env_more):
        self.name, self.port = name, _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        env = {**os.environ, "DAGSCOPE_DATABASE_URL": database_url, "DAGSCOPE_DATA_DIR": str(folder / name),
               "DAGSCOPE_DRAIN_TIMEOUT": "30", "PYTHONUNBUFFERED": "1", **env_more}
        self.log_path = folder / f"{name}.log"
        self.log = open(self.log_path, "w")
        self.proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(self.port)],
                                     cwd=ROOT, env=env, stdout=self.log, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL)

    def wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                break
            try:
                if httpx.get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.HTTPError:
                pass
            time.sleep(0.2)
        raise RuntimeError(f"replica {self.name} was not ready: {self.log_path.read_text()[-2000:]}")

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(timeout=40)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        self.log.close()


@pytest.fixture(scope="module")
def replicas(postgres, tmp_path_factory):
    folder = tmp_path_factory.mktemp("replicas")
    url = postgres.fresh_schema_url()
    # a shared snippet every 2 minutes, bursts of 5: test_a_client_over_its_rate_on_a_is_refused_on_b
    slow = {"DAGSCOPE_SNIPPET_RATE_PER_MIN": "0.5"}
    pair = [Replica("a", url, folder, **slow), Replica("b", url, folder, DAGSCOPE_LOG_FORMAT="json", **slow)]
    try:
        for replica in pair:               # both start at once: they migrate the schema once
            replica.wait_ready()
        yield pair
    finally:
        for replica in pair:
            replica.stop()


def test_a_link_shared_on_a_opens_on_b(replicas):
    a, b = replicas
    made = httpx.post(a.url + "/api/snippets", json={"code": "print('from A')\n", "state": {"tab": "step"}},
                      timeout=30).json()
    got = httpx.get(f"{b.url}/api/snippets/{made['id']}", timeout=30, headers={"X-Request-ID": "share-on-b-0001"}).json()
    assert got["code"] == "print('from A')\n" and got["state"] == {"tab": "step"}
    page = httpx.get(b.url + made["url"], timeout=30)
    assert page.status_code == 200 and "from A" in page.text
    # B logs JSON lines (DAGSCOPE_LOG_FORMAT=json), its access line under the id the request came with
    logged = [json.loads(line) for line in b.log_path.read_text().splitlines() if line.startswith("{")]
    assert any(line["request_id"] == "share-on-b-0001" and line["logger"] == "uvicorn.access" for line in logged)


def test_a_runs_files_and_tensor_values_from_a_are_served_by_b(replicas):
    a, b = replicas
    rec = httpx.post(a.url + "/api/run", json={"code": TENSOR_CODE}, timeout=60).json()
    assert rec["ok"], rec.get("error")
    (kept,) = rec["files"]
    download = httpx.get(b.url + kept["url"], timeout=30)
    assert download.status_code == 200 and download.content == b"kept on A, served by B\n"
    w = next(n for n in rec["graphs"][0]["forward"]["nodes"] if n["op"] == "input")
    values = httpx.get(f"{b.url}/api/runs/{rec['run_id']}/tensors/{w['value']['values']}", timeout=30)
    assert values.status_code == 200
    assert np.load(io.BytesIO(values.content), allow_pickle=False).shape == (30, 20)
    summary = httpx.get(f"{b.url}/api/runs/{rec['run_id']}/tensors/{w['value']['values']}/summary", timeout=30)
    assert summary.json()["stats"] == w["value"]["stats"]


def test_a_client_over_its_rate_on_a_is_refused_on_b(replicas):
    """The per-client rate limits are kept in the shared database: a client (here 127.0.3.1, not
    the replicas' own machine) that spent its burst on A is refused by B."""
    a, b = replicas
    body = {"code": "print(1)\n", "state": {}}
    with httpx.Client(transport=httpx.HTTPTransport(local_address="127.0.3.1"), timeout=30) as client:
        answers = [client.post(a.url + "/api/snippets", json=body).status_code for _ in range(5)]
        refused = client.post(b.url + "/api/snippets", json=body)
    assert answers == [201] * 5
    assert refused.status_code == 429 and int(refused.headers["Retry-After"]) > 0, refused.text


@pytest.mark.skipif(shutil.which("caddy") is None, reason="Debian's caddy is not installed (make test installs it)")
def test_deploys_caddyfile_proxies_to_a_replica(replicas, tmp_path):
    """deploy/Caddyfile as compose runs it, outside a container: the replicas' name is `localhost`
    and B's port instead of Docker's `app` 8000."""
    _, b = replicas
    port, admin = _free_port(), _free_port()
    env = {**os.environ, "DAGSCOPE_SITE": f"http://127.0.0.1:{port}", "DAGSCOPE_UPSTREAM_NAME": "localhost",
           "DAGSCOPE_UPSTREAM_PORT": str(b.port), "DAGSCOPE_PROXY_ADMIN": f"127.0.0.1:{admin}",
           "XDG_DATA_HOME": str(tmp_path), "XDG_CONFIG_HOME": str(tmp_path), "HOME": str(tmp_path)}
    proxy = subprocess.Popen(["caddy", "run", "--adapter", "caddyfile", "--config", str(ROOT / "deploy" / "Caddyfile")],
                             env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                health = httpx.get(url + "/healthz", timeout=2)
                break
            except httpx.HTTPError:
                assert time.monotonic() < deadline and proxy.poll() is None, "Caddy did not start"
                time.sleep(0.2)
        assert health.status_code == 200 and health.json() == {"status": "ok"}
        request_id = health.headers["x-request-id"]          # Caddy's {http.request.uuid}, kept by the app
        assert re.fullmatch(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", request_id)
        assert any(f'"request_id": "{request_id}"' in line for line in b.log_path.read_text().splitlines())
        assert httpx.get(url + "/metrics", timeout=5).status_code == 404          # never through the proxy
        big = httpx.post(url + "/api/snippets", content=b"x" * (9 << 20), timeout=30,
                         headers={"content-type": "application/json"})
        assert big.status_code == 413          # the replica's own limit, from Content-Length, through the proxy
        made = httpx.post(url + "/api/snippets", json={"code": "via the proxy\n"}, timeout=30).json()
        assert httpx.get(f"{b.url}/api/snippets/{made['id']}", timeout=30).json()["code"] == "via the proxy\n"
    finally:
        proxy.terminate()
        proxy.wait(timeout=10)


def test_a_stop_sent_to_b_stops_the_run_on_a(replicas):
    """The page's Stop may reach the other replica: B finds the key's digest in the database and
    NOTIFYs A, which stops its run (app/services/stop_relay.py)."""
    a, b = replicas
    key = "stop-key-for-replicas-0123456789"
    answer = {}

    def run_on_a():
        answer["response"] = httpx.post(a.url + "/api/run", timeout=60, json={
            "code": "import time\nfor i in range(200):\n    time.sleep(0.05)\n", "stop_key": key})
    runner = threading.Thread(target=run_on_a)
    runner.start()
    deadline = time.monotonic() + 20
    while True:                           # until A has registered the run (it is queued or running)
        stopped = httpx.post(b.url + "/api/run/stop", json={"stop_key": key}, timeout=10)
        if stopped.status_code == 200 or time.monotonic() > deadline:
            break
        time.sleep(0.2)
    runner.join(timeout=60)
    assert stopped.status_code == 200 and stopped.json() == {"stopped": True}
    assert answer["response"].json()["error"]["kind"] == "stopped"
    again = httpx.post(b.url + "/api/run/stop", json={"stop_key": key}, timeout=10)
    assert again.status_code == 404                  # an ended run's key stops nothing, anywhere


def test_stopping_a_mid_run_finishes_the_run_and_loses_nothing(replicas):
    """SIGTERM while A runs a program: A answers that run in full, takes no new one, exits, and
    the run's file and tensor values (acknowledged in its answer; the values are written after
    it, and A's shutdown waits for them) are served by B afterwards."""
    a, b = replicas
    answer = {}

    def run_on_a():
        answer["response"] = httpx.post(a.url + "/api/run", json={"code": SLOW_CODE}, timeout=60)
    runner = threading.Thread(target=run_on_a)
    runner.start()
    time.sleep(1.0)                          # the run is going (it sleeps 2.5 s in the sandbox)
    a.proc.send_signal(signal.SIGTERM)
    runner.join(timeout=60)
    response = answer["response"]
    assert response.status_code == 200
    rec = response.json()
    assert rec["ok"] and rec["stdout"] == "finished\n", rec.get("error")
    # uvicorn re-raises the signal once it has shut down cleanly: ended by SIGTERM, after its lifespan's end
    assert a.proc.wait(timeout=40) in (0, -signal.SIGTERM)
    assert "Application shutdown complete" in a.log_path.read_text()
    with pytest.raises(httpx.ConnectError):             # gone: new requests go to another replica
        httpx.post(a.url + "/api/run", json={"code": "print(1)"}, timeout=5)
    (late,) = rec["files"]
    assert httpx.get(b.url + late["url"], timeout=30).content == b"written while A was stopping\n"
    w = next(n for n in rec["graphs"][0]["forward"]["nodes"] if n["op"] == "input")
    values = httpx.get(f"{b.url}/api/runs/{rec['run_id']}/tensors/{w['value']['values']}", timeout=30)
    assert values.status_code == 200, values.text
    assert (np.load(io.BytesIO(values.content), allow_pickle=False) == 1).all()
    assert httpx.get(b.url + "/readyz", timeout=10).status_code == 200


def test_a_draining_server_refuses_new_runs_and_is_not_ready(client, monkeypatch):
    from app.services import runs
    monkeypatch.setattr(runs, "_draining", threading.Event())
    assert client.get("/readyz").status_code == 200
    runs.drain()
    refused = client.post("/api/run", json={"code": "print(1)"})
    assert refused.status_code == 503 and "shutting down" in refused.json()["detail"]
    ready = client.get("/readyz")
    assert ready.status_code == 503 and ready.json()["draining"].startswith("yes")
