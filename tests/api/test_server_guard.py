"""The server's connection guards (app/server.py) on a real `python -m app` with short deadlines:
half-sent requests and slow bodies are closed with a 408 after their deadline, a flood of
half-open connections stays within the caps while /healthz answers at once, oversized or
malformed request heads get JSON, and the descriptor limit is raised at start.
Every connection is on loopback, bounded in number, and closed at the end of its test."""
from __future__ import annotations

import contextlib
import os
import re
import resource
import socket
import subprocess
import sys
import time

import httpx
import pytest

from app.config import ROOT
from raw_sockets import closed_by_server, connect

HEADER_TIMEOUT, BODY_TIMEOUT, PER_CLIENT, MAX_CONNECTIONS = 1.0, 2.0, 20, 150
FAST = 2.0          # seconds: /healthz under pressure, as the attack suite's poller (idle it takes ~5 ms)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start(args: list[str], env: dict) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    proc = subprocess.Popen([sys.executable, "-m", "app", *args, "--port", str(port)], cwd=ROOT,
                            env={**os.environ, **env}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(base + "/healthz", timeout=1).status_code == 200:
                return proc, base
        time.sleep(0.1)
    proc.kill()
    raise RuntimeError("the server did not start")


def stop(proc: subprocess.Popen) -> str:
    proc.terminate()
    try:
        out, _ = proc.communicate(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, _ = proc.communicate()
    return out


@contextlib.contextmanager
def guarded_server(header_timeout: float):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 8192)), hard))   # the test's own sockets
    proc, base = start(["--host", "127.0.0.1"], {
        "DAGSCOPE_HEADER_TIMEOUT": str(header_timeout), "DAGSCOPE_BODY_TIMEOUT": str(BODY_TIMEOUT),
        "DAGSCOPE_CONNECTIONS_PER_CLIENT": str(PER_CLIENT), "DAGSCOPE_MAX_CONNECTIONS": str(MAX_CONNECTIONS),
        "DAGSCOPE_RUN_TIMEOUT": "3"})
    try:
        yield proc, base
    finally:
        stop(proc)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


@pytest.fixture(scope="module")
def server():
    with guarded_server(HEADER_TIMEOUT) as running:
        yield running


@pytest.fixture(scope="module")
def patient_server():
    """Deadlines far away: what holds the connections down here is the caps alone."""
    with guarded_server(60.0) as running:
        yield running


def open_descriptors(pid: int) -> int:
    return len(os.listdir(f"/proc/{pid}/fd"))


def health_time(base: str) -> float:
    started = time.monotonic()
    assert httpx.get(base + "/healthz", timeout=5).status_code == 200
    return time.monotonic() - started


def test_half_sent_headers_get_408_and_idle_connections_are_closed(server):
    _, base = server
    half = [connect(base, "127.0.0.2", b"GET /healthz HTTP/1.1\r\nHost: localhost\r\nX-Slow: ") for _ in range(5)]
    silent = [connect(base, "127.0.0.3") for _ in range(5)]
    try:
        assert health_time(base) < FAST
        started = time.monotonic()
        answers = [closed_by_server(s, HEADER_TIMEOUT + 3) for s in half + silent]
        assert time.monotonic() - started < HEADER_TIMEOUT + 3
        assert all(a is not None and a.startswith(b"HTTP/1.1 408 ") and b"did not arrive within" in a
                   for a in answers[:5]), answers[:5]
        assert answers[5:] == [b""] * 5            # never said a word: closed without one
    finally:
        for s in half + silent:
            s.close()


def test_a_slow_body_gets_408_after_its_deadline(server):
    _, base = server
    head = (b"POST /api/snippets HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
            b"Content-Length: 1000\r\n\r\n{\"code\": \"")
    slow = [connect(base, "127.0.0.4", head) for _ in range(3)]
    try:
        time.sleep(HEADER_TIMEOUT + 0.2)            # past the header deadline: the body one counts now
        for s in slow:
            s.sendall(b"x")
        early = [closed_by_server(s, 0.1) for s in slow]
        assert early == [None] * 3, early     # still within the body deadline
        answers = [closed_by_server(s, BODY_TIMEOUT + 2) for s in slow]
        assert all(a is not None and b" 408 " in a.split(b"\r\n")[0] and b"body" in a for a in answers), answers
    finally:
        for s in slow:
            s.close()


def test_a_client_that_stops_reading_is_cut_off_after_the_body_deadline(server):
    """A slow reader: 20 pipelined requests for a 465 kB file, nothing read; the answer stalls
    in the socket buffers and the server aborts the connection after BODY_TIMEOUT."""
    _, base = server
    host, port = base.removeprefix("http://").split(":")
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    s.bind(("127.0.0.7", 0))
    s.connect((host, int(port)))
    whole = 20 * os.path.getsize(ROOT / "static" / "vendor" / "codemirror.js")
    try:
        s.sendall(b"GET /static/vendor/codemirror.js HTTP/1.1\r\nHost: localhost\r\n\r\n" * 20)
        time.sleep(BODY_TIMEOUT + 1.5)
        assert health_time(base) < FAST
        s.settimeout(5)
        got = 0
        with contextlib.suppress(ConnectionResetError):
            while chunk := s.recv(1 << 20):
                got += len(chunk)
        assert got < whole / 2, (got, whole)       # cut off, not served to the end once read
    finally:
        s.close()


def settled_descriptors(pid: int, at_most: int, within: float = 3.0) -> int:
    """The server's open descriptors once it has taken in every connection (polled)."""
    deadline = time.monotonic() + within
    while (count := open_descriptors(pid)) > at_most and time.monotonic() < deadline:
        time.sleep(0.05)
    return count


def test_a_flood_of_half_open_connections_stays_capped_and_health_answers(patient_server):
    proc, base = patient_server
    before = open_descriptors(proc.pid)
    flood, slowest_health, peak = [], 0.0, 0
    try:
        for i in range(2000):
            flood.append(connect(base, "127.0.0.5", b"GET / HTTP/1.1\r\nHost: localhost\r\n"))
            if i % 250 == 249:
                slowest_health = max(slowest_health, health_time(base))
                peak = max(peak, settled_descriptors(proc.pid, before + PER_CLIENT + 2) - before)
        assert peak <= PER_CLIENT + 2, peak        # one client keeps at most its share
        slowest_health = max(slowest_health, health_time(base))
        assert slowest_health < FAST, slowest_health
        evicted = sum(closed_by_server(s, 0.01) is not None for s in flood)
        assert evicted >= 2000 - PER_CLIENT
    finally:
        for s in flood:
            s.close()


def test_many_clients_stay_within_the_global_cap(patient_server):
    proc, base = patient_server
    before = open_descriptors(proc.pid)
    sockets = []
    try:
        for n in range(20):                        # 20 clients x 15 half-open connections = 300 > 150
            sockets += [connect(base, f"127.0.1.{n + 1}", b"GET / HTTP/1.1\r\n") for _ in range(15)]
        assert settled_descriptors(proc.pid, before + MAX_CONNECTIONS + 2) - before <= MAX_CONNECTIONS + 2
        assert health_time(base) < FAST
    finally:
        for s in sockets:
            s.close()


def test_huge_headers_are_431_in_json(server):
    _, base = server
    s = connect(base, "127.0.0.6", b"GET / HTTP/1.1\r\nHost: localhost\r\nX-Big: " + b"a" * 40_000 + b"\r\n\r\n")
    try:
        answer = closed_by_server(s, 3)
        assert answer.startswith(b"HTTP/1.1 431 ") and b'{"detail": "the request\'s headers are larger than' in answer
    finally:
        s.close()
    r = httpx.get(base + "/healthz", headers={f"x-h{i}": "v" * 1000 for i in range(40)}, timeout=5)
    assert r.status_code == 431 and "headers" in r.json()["detail"]


def test_a_malformed_request_is_400_in_json(server):
    _, base = server
    s = connect(base, "127.0.0.6", b"GET / HTTP/9.9 \x00\r\n\r\n")
    try:
        answer = closed_by_server(s, 3)
        assert answer.startswith(b"HTTP/1.1 400 ") and b"not valid HTTP" in answer
    finally:
        s.close()


def test_the_descriptor_limit_is_raised_to_the_hard_limit(server):
    proc, _ = server
    limits = open(f"/proc/{proc.pid}/limits").read()
    soft, hard = re.search(r"Max open files\s+(\S+)\s+(\S+)", limits).groups()
    assert soft == hard


def test_serving_the_network_with_a_token_prints_the_lan_url_and_answers_to_it():
    from app.__main__ import lan_address
    lan = lan_address()
    proc, base = start(["--host", "0.0.0.0", "--token", "t0ken-for-test"], {"DAGSCOPE_ALLOWED_HOSTS": ""})
    try:
        port = base.rsplit(":", 1)[1]
        page = httpx.get(f"{base}/?token=t0ken-for-test", headers={"host": f"{lan}:{port}"}, timeout=5)
        assert page.status_code == 200 and "dagscope_token" in page.headers["set-cookie"]
        run = httpx.post(f"{base}/api/run", json={"code": "print(6 * 7)"}, timeout=30,
                         headers={"host": f"{lan}:{port}", "origin": f"http://{lan}:{port}",
                                  "authorization": "Bearer t0ken-for-test"})
        assert run.status_code == 200 and run.json()["stdout"] == "42\n"
        assert httpx.get(f"{base}/healthz", headers={"host": "rebound.evil.example"}, timeout=5).status_code == 400
    finally:
        out = stop(proc)
    assert f"http://{lan}:{port}/?token=t0ken-for-test" in out
