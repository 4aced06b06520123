"""Fixtures of the attack suite: `live_server`, `attack` and the /healthz poller (harness.py)."""
from __future__ import annotations

import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from harness import (HEALTH_SLOW_S, RUN_TIMEOUT_S, HealthPoller, LiveServer, files_of_runs, free_port,
                     sysv_ipc_objects)
from app.sandbox.runner import TIMEOUT_GRACE_S
from proc_tree import descendants

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture(scope="session")
def live_server(tmp_path_factory):
    """`python -m app` on a free loopback port, with its own data and temporary folders."""
    port = free_port()
    data_dir = tmp_path_factory.mktemp("attack-data")
    tmp_dir = tmp_path_factory.mktemp("attack-tmp")
    os.chmod(tmp_dir, 0o755)
    env = {**os.environ, "DAGSCOPE_DATA_DIR": str(data_dir), "TMPDIR": str(tmp_dir),
           "DAGSCOPE_RUN_TIMEOUT": str(RUN_TIMEOUT_S), "PYTHONUNBUFFERED": "1",
           # the values' memfd, and so the record pipe's bound (Limits.max_pipe_bytes: record + values
           # + index), kept small: at the default 128 MB a program writing the pipe without end needed
           # 140 MB through it to be stopped as output_limit, which the run's 3 s clock beat at load 11
           "DAGSCOPE_RUN_VALUES_MB": "4",
           # no dot started in advance: each attack checks that no process is left below the
           # server (tests/api/test_dot_warm.py checks the one that waits)
           "DAGSCOPE_RENDER_WARM": "0"}
    log = open(tmp_path_factory.mktemp("attack-log") / "server.log", "w")     # uvicorn's lines, for a failure
    proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    client = httpx.Client()
    deadline = time.monotonic() + 60
    while True:
        try:
            if client.get(url + "/healthz", timeout=1).status_code == 200:
                break
        except httpx.HTTPError:
            pass
        if proc.poll() is not None or time.monotonic() > deadline:
            proc.kill()
            raise RuntimeError(f"the server did not answer /healthz within 60 s (its log: {log.name})")
        time.sleep(0.2)
    server = LiveServer(url=url, pid=proc.pid, data_dir=data_dir, tmp_dir=tmp_dir, client=client)
    poller = HealthPoller(url)
    poller.start()
    try:
        yield server
    finally:
        poller.stop()
        client.close()
        proc.terminate()
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        log.close()
    assert poller.latencies, "the /healthz poller never ran"
    assert not poller.failures, (
        f"/healthz failed or answered slower than {HEALTH_SLOW_S} s during the attack suite "
        f"({len(poller.failures)} of {len(poller.latencies)} polls): {poller.failures[:10]}")
    print(f"\n/healthz during the attack suite: {len(poller.latencies)} polls, median "
          f"{statistics.median(poller.latencies) * 1000:.1f} ms, max {max(poller.latencies) * 1000:.1f} ms")


@pytest.fixture(scope="session")
def _baseline(live_server):
    """What the server has when idle: its zygote (started by one harmless run) and the host's IPC."""
    record = live_server.request("POST", "/api/run", json={"code": "print(1)", "options": {}}).json()
    assert record["stdout"] == "1\n", record
    time.sleep(0.5)
    return set(descendants(live_server.pid)), sysv_ipc_objects(), files_of_runs()


@pytest.fixture
def attack(live_server, _baseline):
    """Run hostile `code` through POST /api/run; returns the record. Asserts HTTP 200 within the
    run limit + its interrupt's grace + 2 s, then (after the test) that the run left nothing
    behind: no process, SysV IPC object, scratch or compiler folder, nor a file of a run's uid in
    the host's shared folders."""
    processes, ipc, run_files = _baseline

    def run(code: str, **options) -> dict:
        started = time.monotonic()
        response = live_server.request("POST", "/api/run", json={"code": code, "options": options})
        took = time.monotonic() - started
        assert response.status_code == 200, (response.status_code, response.text[:500])
        # the run's clock starts once its child is up: the start before it (a fork of the zygote, the
        # supervisor's and the child's) and the interrupt's grace after it are not the clock's, and
        # take seconds at load 15; bounded all the same (this is about no attack holding the server)
        bound = live_server.run_timeout_s + TIMEOUT_GRACE_S + 2.0
        assert took <= bound, f"answered after {took:.2f} s"
        return response.json()

    yield run
    deadline = time.monotonic() + 5
    while True:
        extra_processes = set(descendants(live_server.pid)) - processes
        extra_ipc = sysv_ipc_objects() - ipc
        leftovers = live_server.leftovers() + sorted(files_of_runs() - run_files)
        if not (extra_processes or extra_ipc or leftovers) or time.monotonic() > deadline:
            break
        time.sleep(0.1)
    assert not extra_processes, f"processes left below the server: {sorted(extra_processes)}"
    assert not extra_ipc, f"SysV IPC objects left behind: {sorted(extra_ipc)}"
    assert not leftovers, f"files left behind: {leftovers}"
