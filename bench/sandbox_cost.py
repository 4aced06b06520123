"""What the sandbox's layers cost a run: this tree against another checkout, interleaved in one run.

Each tree gets a worker process that starts its own warm zygote and runs programs through
`app.sandbox.run_code` (fork, lock down, run, collect, judge: everything but HTTP). Requests
alternate between the two workers, so both see the same machine load, and the table prints the
median and p95 wall time per program and tree and the median difference. Goal (issue 13): the
trust layers add at most 20 ms to a run.

    .venv/bin/python bench/sandbox_cost.py --baseline /path/to/old/checkout [--runs 40]
    .venv/bin/python bench/sandbox_cost.py            # this tree alone
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAMS = {
    "print(1)": "print(1)\n",
    "autograd seed": ("import torch\nx = torch.tensor([1.0, 2.0], requires_grad=True)\ny = x * 2\n"
                      "z = y.sum()\nz.backward()\nprint(x.grad)\n"),
    "compiled MLP (warm cache)": (
        "import torch\nimport torch.nn as nn\ntorch.manual_seed(0)\n"
        "model = nn.Sequential(nn.Linear(8, 16), nn.Tanh(), nn.Linear(16, 1))\n"
        "fast = torch.compile(model)\nx = torch.randn(4, 8)\nprint(fast(x).shape)\n"),
}
WORKER = r"""
import inspect, json, sys, time
from app.sandbox import ZYGOTE, Limits, run_code
ZYGOTE.ensure_started()
# one client's kernel cache, as the server gives every run (a tree without partitions shares one)
kw = {"cache_partition": "0" * 32} if "cache_partition" in inspect.signature(run_code).parameters else {}
print(json.dumps({"ready": True}), flush=True)
for line in sys.stdin:
    code = json.loads(line)
    started = time.perf_counter()
    record = run_code(code, {}, Limits(), **kw)
    took = (time.perf_counter() - started) * 1000
    print(json.dumps({"ms": took, "ok": record.get("ok"), "error": record.get("error")}), flush=True)
"""


class Worker:
    def __init__(self, tree: Path):
        self.tree = tree
        self.proc = subprocess.Popen([sys.executable, "-c", WORKER], cwd=tree, text=True,
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert json.loads(self.proc.stdout.readline())["ready"], f"{tree}: the worker did not start"

    def run(self, code: str) -> float:
        self.proc.stdin.write(json.dumps(code) + "\n")
        self.proc.stdin.flush()
        answer = json.loads(self.proc.stdout.readline())
        if not answer["ok"]:
            raise SystemExit(f"{self.tree}: the run failed: {answer['error']}")
        return answer["ms"]

    def close(self) -> None:
        self.proc.stdin.close()
        self.proc.wait(timeout=30)


def p95(values: list[float]) -> float:
    return sorted(values)[min(len(values) - 1, int(round(0.95 * (len(values) - 1))))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, help="another checkout to compare with")
    parser.add_argument("--runs", type=int, default=40)
    args = parser.parse_args()
    trees = {"this tree": ROOT} | ({"baseline": args.baseline.resolve()} if args.baseline else {})
    workers = {name: Worker(tree) for name, tree in trees.items()}
    try:
        print(f"{'program':28} {'tree':10} {'median ms':>10} {'p95 ms':>8}")
        for label, code in PROGRAMS.items():
            times = {name: [] for name in workers}
            for name, worker in workers.items():
                worker.run(code)                         # warm: kernel caches, first-run costs
            for _ in range(args.runs):
                for name, worker in workers.items():
                    times[name].append(worker.run(code))
            for name, values in times.items():
                print(f"{label:28} {name:10} {statistics.median(values):10.1f} {p95(values):8.1f}")
            if "baseline" in times:
                added = [a - b for a, b in zip(times["this tree"], times["baseline"])]
                print(f"{label:28} {'added':10} {statistics.median(added):10.1f}")
    finally:
        for worker in workers.values():
            worker.close()


if __name__ == "__main__":
    main()
