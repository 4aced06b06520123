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

Capacity (issue 20), `--capacity`: runs per second per core, closed loop (each of 2 x the run
slots' clients sends its next run as soon as its last is answered, from its own address, with the
rate limits off), for the seed MLP and nanoGPT's tiny config, on
  1. one replica with all the machine's run slots (DAGSCOPE_WORKERS = cores), and
  2. the same replica on PostgreSQL (tests/postgres_server.py's throwaway server: its tensor
     values and files then go to the database), and
  3. two replicas with half the run slots each, sharing that PostgreSQL, the clients alternating
     between them as a proxy would;
the same total cores, so 3 against 1 is what replication costs (goal: <= 10%), and 2 against 1
what the shared database costs. All layouts run at once and their rows are taken in turns
(`--rounds`), so the machine's other load falls on each alike; beside runs per second each row
gives the CPU seconds a run cost (the replicas' process trees with their sandboxes, and
PostgreSQL's), which a busy machine hardly changes. docs/deploy.md turns it into a sizing table.

    .venv/bin/python bench/load.py --capacity [--duration 20] [--rounds 3]
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


def start_server(port: int, env: dict | None = None) -> subprocess.Popen:
    proc = subprocess.Popen([sys.executable, "-m", "app", "--host", "127.0.0.1", "--port", str(port)],
                            cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            env={**os.environ, **(env or {})})
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


def nanogpt_tiny() -> str:
    """nanoGPT's model.py (bench/models/nanogpt.py's definitions) with a tiny config: 2 layers,
    2 heads, 64 wide, block 32, one training step on a batch of 4 x 32 tokens."""
    sys.path.insert(0, str(ROOT / "bench"))
    from models import program, split
    head, _, _ = split(program("nanogpt"))
    return head + """torch.manual_seed(1337)
config = GPTConfig(block_size=32, vocab_size=65, n_layer=2, n_head=2, n_embd=64, dropout=0.0, bias=False)
model = GPT(config)
x = torch.randint(0, 65, (4, 32))
y = torch.randint(0, 65, (4, 32))
logits, loss = model(x, y)
loss.backward()
print(f"loss {loss.item():.4f}")
"""


def cpu_seconds(pids: list[int], descendants: list[int] = ()) -> float:
    """CPU seconds used so far by the processes `pids` (their threads, and the children they
    waited for) and by `descendants` with every live process under them (PostgreSQL: the
    postmaster waits for its ended backends). Not the runs' sandboxes: the zygote ignores
    SIGCHLD, so an ended run's time reaches no parent's account (sandbox_cpu measures it)."""
    children: dict[int, list[int]] = {}
    times: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            fields = Path(f"/proc/{name}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        children.setdefault(int(fields[1]), []).append(int(name))
        times[int(name)] = sum(int(f) for f in fields[11:15])     # utime stime cutime cstime
    total, todo = sum(times.get(pid, 0) for pid in pids), list(descendants)
    while todo:
        pid = todo.pop()
        total += times.get(pid, 0)
        todo.extend(children.get(pid, ()))
    return total / os.sysconf("SC_CLK_TCK")


def sandbox_cpu(code: str, runs: int) -> float:
    """The mean CPU seconds of `code`'s sandboxed process per run, as its supervisor measured it
    (wait4's rusage in the report), run here outside any server."""
    from app.sandbox import runner
    from app.services import runs as run_service
    seen, judge = [], runner.judge_run

    def judge_and_note(report, *args, **kwargs):
        seen.append(float(report.get("cpu_s", 0.0)))
        return judge(report, *args, **kwargs)
    runner.judge_run = judge_and_note
    try:
        for _ in range(runs + 1):
            run_service.run(code, {})
    finally:
        runner.judge_run = judge
    return sum(seen[1:]) / max(1, len(seen) - 1)          # the first warms the zygote


def saturate(bases: list[str], code: str, clients: int, duration: float, servers: list[int] = (),
             database: list[int] = ()) -> dict:
    """`clients` closed-loop clients (client i on its own address, sending to bases[i % len]);
    the CPU time of the `servers`' processes and of the `database`'s process trees is measured."""
    results: list[tuple[float, str]] = []
    lock = threading.Lock()
    stop_at = time.monotonic() + duration

    def client(i: int) -> None:
        with httpx.Client(base_url=bases[i % len(bases)], timeout=120,
                          transport=httpx.HTTPTransport(local_address=f"127.0.2.{i + 1}")) as http:
            while time.monotonic() < stop_at:
                started = time.monotonic()
                try:
                    r = http.post("/api/run", json={"code": code})
                    outcome = ("ok" if r.json()["ok"] else r.json()["error"]["kind"]) if r.status_code == 200 \
                        else f"http {r.status_code}"
                except httpx.HTTPError as exc:
                    outcome = type(exc).__name__
                with lock:
                    results.append((time.monotonic() - started, outcome))
    cpu_before = cpu_seconds(list(servers), list(database))
    started = time.monotonic()
    threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    elapsed = time.monotonic() - started
    time.sleep(0.5)                  # the last runs' values written after their answers (tensors.py)
    cpu = cpu_seconds(list(servers), list(database)) - cpu_before
    ok = [lat for lat, out in results if out == "ok"]
    cores = os.cpu_count() or 1
    return {"runs": len(ok), "elapsed": elapsed, "cpu": cpu, "latencies": ok,
            "failures": sorted({out for _, out in results if out != "ok"}),
            "per_s": len(ok) / elapsed, "per_s_core": len(ok) / elapsed / cores, "p50": percentile(ok, 0.5),
            "p95": percentile(ok, 0.95), "loadavg": os.getloadavg()[0]}


def capacity(duration: float, rounds: int) -> None:
    """Every layout's servers up at once, and the rows taken in turns (round 1: each program on
    each layout for `duration` s, then round 2, ...): the machine's other load falls on all
    layouts alike, and each round's ratios are taken within a few minutes."""
    sys.path.insert(0, str(ROOT / "tests"))
    from postgres_server import PostgresServer
    cores = os.cpu_count() or 1
    quiet = {"DAGSCOPE_RATE_PER_MIN": "0", "DAGSCOPE_QUEUE_LIMIT": "64"}
    programs = {"seed MLP (examples/10)": mlp_snippet(), "nanoGPT tiny": nanogpt_tiny()}
    pg = PostgresServer()
    pg.start()
    postmaster = int((pg.folder / "data" / "postmaster.pid").read_text().split()[0])
    layouts = {"1 replica": [{"DAGSCOPE_WORKERS": str(cores)}],
               "1 replica + PostgreSQL": [{"DAGSCOPE_WORKERS": str(cores), "DAGSCOPE_DATABASE_URL": pg.fresh_schema_url()}],
               "2 replicas + PostgreSQL": [{"DAGSCOPE_WORKERS": str(max(1, cores // 2)),
                                            "DAGSCOPE_DATABASE_URL": pg.fresh_schema_url()}] * 2}
    servers: dict[str, list[tuple[subprocess.Popen, str]]] = {}
    rows: dict[tuple[str, str], list[dict]] = {}
    try:
        for layout, envs in layouts.items():
            servers[layout] = []
            for env in envs:
                port = free_port()
                servers[layout].append((start_server(port, {**quiet, **env}), f"http://127.0.0.1:{port}"))
        for layout, pair in servers.items():
            for code in programs.values():      # warm: each replica's zygote, the caches
                saturate([base for _, base in pair], code, len(pair), 3)
        for _ in range(rounds):
            for name, code in programs.items():
                for layout, pair in servers.items():
                    rows.setdefault((layout, name), []).append(saturate(
                        [base for _, base in pair], code, 2 * cores, duration, [proc.pid for proc, _ in pair],
                        [postmaster] if "PostgreSQL" in layout else []))
    finally:
        for pair in servers.values():
            for proc, _ in pair:
                proc.terminate()
        for pair in servers.values():
            for proc, _ in pair:
                try:
                    proc.wait(30)
                except subprocess.TimeoutExpired:
                    proc.kill()
        pg.stop()
    sys.path.insert(0, str(ROOT))
    own = {name: sandbox_cpu(code, 5) for name, code in programs.items()}
    print(f"{cores} cores; closed loop, {2 * cores} clients; {rounds} rounds of {duration:g} s per row, in turns")
    print("| layout | program | runs | runs/s | runs/s per core | server + database CPU s per run | p50 s | p95 s | "
          "failures | load avg |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---|---|")
    total = {}
    for (layout, name), done in rows.items():
        runs = sum(r["runs"] for r in done)
        latencies = [lat for r in done for lat in r["latencies"]]
        total[layout, name] = t = {"per_s": runs / sum(r["elapsed"] for r in done),
                                   "cpu": sum(r["cpu"] for r in done) / max(1, runs)}
        loads = [r["loadavg"] for r in done]
        print(f"| {layout} | {name} | {runs} | {t['per_s']:.2f} | {t['per_s'] / cores:.2f} | {t['cpu']:.3f} | "
              f"{percentile(latencies, 0.5):.2f} | {percentile(latencies, 0.95):.2f} | "
              f"{', '.join(sorted({f for r in done for f in r['failures']})) or '-'} | {min(loads):.1f}-{max(loads):.1f} |")
    one, one_pg, two = layouts
    for name in programs:
        by_round = ", ".join(f"{b['per_s'] / a['per_s']:.2f}" for a, b in zip(rows[one, name], rows[two, name]))
        by_round_pg = ", ".join(f"{b['per_s'] / a['per_s']:.2f}" for a, b in zip(rows[one_pg, name], rows[two, name]))
        base = own[name] + total[one, name]["cpu"]
        print(f"{name}: two replicas + PostgreSQL give {total[two, name]['per_s'] / total[one, name]['per_s']:.2f}x "
              f"one replica's runs/s (by round: {by_round}) and "
              f"{total[two, name]['per_s'] / total[one_pg, name]['per_s']:.2f}x one replica's on PostgreSQL "
              f"(by round: {by_round_pg}). CPU per run: the sandboxed program {own[name]:.2f} s, and the servers "
              f"with the database {(total[one_pg, name]['cpu'] - total[one, name]['cpu']) / base:+.1%} "
              f"(1 replica + PostgreSQL) and {(total[two, name]['cpu'] - total[one, name]['cpu']) / base:+.1%} "
              f"(2 replicas + PostgreSQL) of one replica's whole run")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--students", type=int, default=30)
    ap.add_argument("--loopers", type=int, default=3)
    ap.add_argument("--duration", type=float, default=60.0)
    ap.add_argument("--period", type=float, default=10.0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--capacity", action="store_true", help="runs per second per core, one replica vs two")
    ap.add_argument("--rounds", type=int, default=3, help="--capacity: rows taken in this many turns")
    args = ap.parse_args()
    if args.capacity:
        return capacity(args.duration, args.rounds)
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
