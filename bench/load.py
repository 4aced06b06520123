"""Classroom load: N students each run the MLP snippet about every 10 s for a minute (open loop).

Starts its own server on 127.0.0.1 with the default settings, gives each simulated student its
own loopback address (127.0.0.N, as students on a LAN have their own addresses, so per-client
limits apply as in class), and prints p50/p95/max latency and failures per scenario:
  1. N students, all running the MLP snippet;
  2. the same with `--loopers` of them pasting an infinite loop instead (their own runs time out
     by design; the table reports the others).
Goal on a 2-core machine: 30 students, no failures, p95 < 2 s; with 3 loopers, others' p95 < 6 s.
The last column is the machine's 1-minute load average at the end of the scenario: anything
else running on the machine competes with the students' runs.

    .venv/bin/python bench/load.py [--students 30] [--loopers 3] [--duration 60] [--period 10]
"""
from __future__ import annotations

import argparse
import os
import random
import socket
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
AUTOGRAD_SEED = ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\nz = y.sum()\n"
                 "z.backward()\nprint(x.grad)\n")
LOOP = "while True:\n    pass\n"


def mlp_snippet() -> str:
    path = ROOT / "examples" / "10_mlp_training_step.py"
    return path.read_text() if path.exists() and (ROOT / "engine" / "nn").exists() else AUTOGRAD_SEED


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(port: int) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/healthz", timeout=1).status_code == 200:
                return proc
        except httpx.HTTPError:
            time.sleep(0.2)
    proc.kill()
    raise SystemExit("the server did not start")


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * (len(ordered) - 1))))]


def scenario(base: str, students: int, loopers: int, duration: float, period: float, seed: int) -> dict:
    rng = random.Random(seed)
    code = mlp_snippet()
    events = []                 # (when, student): each student's first run at a random offset
    for s in range(students):
        t = rng.uniform(0, period)
        while t < duration:
            events.append((t, s))
            t += period * rng.uniform(0.8, 1.2)
    events.sort()
    clients = [httpx.Client(base_url=base, timeout=60, transport=httpx.HTTPTransport(local_address=f"127.0.1.{s + 1}"))
               for s in range(students)]
    results: list[tuple[int, float, str]] = []
    lock = threading.Lock()

    def one(s: int) -> None:
        body = {"code": LOOP if s < loopers else code}
        started = time.monotonic()
        try:
            r = clients[s].post("/api/run", json=body)
            if r.status_code != 200:
                outcome = f"http {r.status_code}"
            else:
                rec = r.json()
                outcome = "ok" if rec["ok"] else rec["error"]["kind"]
        except httpx.HTTPError as exc:
            outcome = type(exc).__name__
        with lock:
            results.append((s, time.monotonic() - started, outcome))

    start = time.monotonic()
    with ThreadPoolExecutor(max_workers=students * 2) as pool:
        for when, s in events:
            time.sleep(max(0.0, start + when - time.monotonic()))
            pool.submit(one, s)
    for c in clients:
        c.close()
    normal = [(lat, out) for s, lat, out in results if s >= loopers]
    looping = [out for s, _, out in results if s < loopers]
    latencies = [lat for lat, _ in normal]
    failures = [out for _, out in normal if out != "ok"]
    return {"students": students, "loopers": loopers, "runs": len(normal), "failures": len(failures),
            "failure_kinds": sorted(set(failures)), "p50": percentile(latencies, 0.5),
            "p95": percentile(latencies, 0.95), "max": max(latencies, default=float("nan")),
            "looper_outcomes": {k: looping.count(k) for k in sorted(set(looping))},
            "loadavg": os.getloadavg()[0]}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--loopers", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--period", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    port = free_port()
    server = start_server(port)
    base = f"http://127.0.0.1:{port}"
    rows = []
    try:
        for loopers in (0, args.loopers):
            rows.append(scenario(base, args.students, loopers, args.duration, args.period, args.seed))
    finally:
        server.terminate()
        server.wait(10)
    print(f"snippet: {'MLP training step' if mlp_snippet() != AUTOGRAD_SEED else 'autograd seed'}; "
          f"{os.cpu_count()} cores; {args.duration:g} s; one run per student every ~{args.period:g} s")
    print("| students | loopers | runs (others) | failures | p50 s | p95 s | max s | loopers' answers | load avg |")
    print("|---:|---:|---:|---:|---:|---:|---:|---|---:|")
    for r in rows:
        fails = f"{r['failures']}" + (f" ({', '.join(r['failure_kinds'])})" if r["failures"] else "")
        print(f"| {r['students']} | {r['loopers']} | {r['runs']} | {fails} | {r['p50']:.3f} | {r['p95']:.3f} | "
              f"{r['max']:.3f} | {r['looper_outcomes'] or '-'} | {r['loadavg']:.1f} |")


if __name__ == "__main__":
    main()
