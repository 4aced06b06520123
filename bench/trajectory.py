"""The cost of recording a training loop's trajectory (issue 17: "the seed MLP trained 200 steps records
in <= 1.5x the plain run's time").

The seed MLP (examples/10_mlp_training_step.py: 100-128-10, batch 32, Adam) trained 200 steps, in one
process, three ways in interleaved rounds (a load spike hits all alike):
  plain       the program under the facades, no recorder
  recorded    run_user_code with a ValueStore, the trajectory switched off (the record as before it)
  trajectory  run_user_code with a ValueStore, as the page runs it
CPU seconds of the process (the machine is shared), median and min over the rounds; the record's
JSON size and the bytes sent on the values side channel.

    .venv/bin/python bench/trajectory.py [--rounds N]
"""
from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import sys
import time

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from engine.record import trajectory  # noqa: E402
from engine.record.values import ValueStore  # noqa: E402
from engine.runner import compat, run_user_code  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def mlp_200() -> str:
    seed = open(os.path.join(ROOT, "examples", "10_mlp_training_step.py")).read()
    head, _ = seed.split("logits = model(x)")
    return head + ("for i in range(200):\n    logits = model(x)\n    loss = F.cross_entropy(logits, y)\n"
                   "    opt.zero_grad()\n    loss.backward()\n    opt.step()\nprint(loss.item())\n")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rounds", type=int, default=7)
    rounds = ap.parse_args().rounds
    code = mlp_200()
    observe = trajectory.Trajectory.observe
    sizes = {}

    def plain():
        with compat.installed():
            exec(compile(code, "<plain>", "exec"), {"__name__": "__main__"})

    def recorded(with_trajectory: bool):
        trajectory.Trajectory.observe = observe if with_trajectory else (lambda self, *a: None)
        try:
            store = ValueStore(128 << 20)
            record = run_user_code(code, values=store)
            text = json.dumps(record)           # the sandbox child writes it
            assert record["error"] is None, record["error"]
            sizes[with_trajectory] = (len(text), store.size)
        finally:
            trajectory.Trajectory.observe = observe

    variants = {"plain": plain, "recorded": lambda: recorded(False), "trajectory": lambda: recorded(True)}
    times = {k: [] for k in variants}
    with contextlib.redirect_stdout(io.StringIO()):
        for f in variants.values():
            f()                                  # warm up
        for _ in range(rounds):
            for name, f in variants.items():
                t0 = time.process_time()
                f()
                times[name].append(time.process_time() - t0)
    base = statistics.median(times["plain"])
    rec = statistics.median(times["recorded"])
    print(f"seed MLP, 200 steps, {rounds} interleaved rounds, CPU s (load {os.getloadavg()[0]:.1f})")
    for name, ts in times.items():
        med = statistics.median(ts)
        print(f"  {name:<11} median {med:.3f}  min {min(ts):.3f}  x plain {med / base:.2f}  x recorded {med / rec:.2f}")
    for flag, (chars, values) in sizes.items():
        print(f"  record {'with' if flag else 'without'} trajectory: {chars / 1e3:.0f} kB JSON, "
              f"{values / 1e6:.1f} MB on the values side channel")


if __name__ == "__main__":
    main()
