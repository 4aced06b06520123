"""Real models through the engine alone, through a page run, and through real PyTorch (when it is
installed): forward + backward time, initialisation, what recording adds, and the record's size.
Issue 16's goals: a page run's step <= 3x PyTorch eager (one thread), the engine alone <= 2x,
recording <= 30% over the engine alone, initialisation <= 2x PyTorch's. Prints a table; ratios are
measured in one run, interleaved, on this noisy machine.

    .venv/bin/python bench/models.py [--repeat 3] [--only nanogpt,resnet]

Each program in bench/models/ is what a teacher pastes; its `# --- bench: setup ---` and
`# --- bench: step ---` lines split it into the definitions, the setup (model construction, i.e.
the random initialisation) and one training step.
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # one thread, as runs have
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import contextlib  # noqa: E402
import io  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODELS = Path(__file__).resolve().parent / "models"
SETUP, STEP = "# --- bench: setup ---", "# --- bench: step ---"


def split(source: str) -> tuple[str, str, str]:
    head, rest = source.split(SETUP, 1)
    setup, step = rest.split(STEP, 1)
    return head, setup, step


def timed_steps(head: str, setup: str, step: str, repeat: int) -> dict:
    """Run the program's parts in this process (under whichever `torch` is importable now)."""
    ns: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(head, "<model>", "exec"), ns)
        t0 = time.perf_counter()
        exec(compile(setup, "<setup>", "exec"), ns)
        init = time.perf_counter() - t0
        code, steps = compile(step, "<step>", "exec"), []
        for _ in range(repeat + 1):               # the first step warms caches
            t0 = time.perf_counter()
            exec(code, ns)
            steps.append(time.perf_counter() - t0)
    return {"init": init, "first": steps[0], "step": min(steps[1:])}


def with_real_torch(head, setup, step, repeat):
    from peer import real_torch
    torch = real_torch()
    if torch is None:
        return None
    torch.set_num_threads(1)
    return timed_steps(head, setup, step, repeat)


def with_engine(head, setup, step, repeat):
    from engine import compat
    with compat.installed():
        return timed_steps(head, setup, step, repeat)


def page_run(client, source: str) -> dict:
    """The program as pasted, through POST /api/run (the sandbox, the recorder, the record's JSON);
    the step times itself, so the recorder's work during the step is apart from the rest."""
    head, setup, step = split(source)
    program = (head + setup + "import time as _bench_time\n_bench_t0 = _bench_time.perf_counter()\n" + step
               + "\nprint('bench-step-s', _bench_time.perf_counter() - _bench_t0)\n")
    t0 = time.perf_counter()
    r = client.post("/api/run", json={"code": program}, headers={"Origin": "http://testserver"})
    took = time.perf_counter() - t0
    record = r.json()
    if not record.get("ok"):
        raise SystemExit(f"the page run failed: {record.get('error')}")
    step_s = float(record["stdout"].rsplit("bench-step-s", 1)[1].split()[0])
    return {"request": took, "elapsed": record["elapsed_ms"] / 1000, "step": step_s, "mb": len(r.content) / 1e6}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    os.environ.setdefault("DAGSCOPE_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DAGSCOPE_RUN_TIMEOUT", "120")
    from fastapi.testclient import TestClient
    from app.main import create_app
    names = [p.stem for p in sorted(MODELS.glob("*.py"))]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    rows = []
    with TestClient(create_app()) as client:
        for name in names:
            source = (MODELS / f"{name}.py").read_text()
            parts = split(source)
            real = with_real_torch(*parts, args.repeat)
            ours = with_engine(*parts, args.repeat)
            page = page_run(client, source)
            rows.append((name, real, ours, page))
            print(f"measured {name}", file=sys.stderr)
    ratio = lambda a, b: f"{a / b:.1f}x" if b else "-"   # noqa: E731
    print(f"{'model':<22} {'torch step':>10} {'engine':>8} {'page step':>10} {'eng/torch':>9} {'page/torch':>10} "
          f"{'request':>8} {'record +':>8} {'MB':>5} {'init torch':>10} {'init ours':>9} {'ratio':>6}")
    for name, real, ours, page in rows:
        t = real["step"] if real else 0
        engine_alone = ours["init"] + ours["first"]
        print(f"{name:<22} {t:>10.3f} {ours['step']:>8.3f} {page['step']:>10.3f} {ratio(ours['step'], t):>9} "
              f"{ratio(page['step'], t):>10} {page['request']:>8.2f} "
              f"{(page['elapsed'] / engine_alone - 1) * 100:>7.0f}% {page['mb']:>5.1f} "
              f"{(real['init'] if real else 0):>10.3f} {ours['init']:>9.3f} "
              f"{ratio(ours['init'], real['init'] if real else 0):>6}")
    print("\nstep: forward + backward (+ optimizer step where the program has one), best of the repeats after one"
          "\nwarm-up; page step: the one step of a page run, timed by the program inside the sandbox (cold,"
          "\nwith the recorder listening); record +: the page run's elapsed time over the engine alone's"
          "\ninit + first step (what recording and the run's set-up add); MB: the run record's JSON.")


if __name__ == "__main__":
    main()
