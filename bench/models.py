"""Real models through the engine alone, through a page run, and through real PyTorch (when it is
installed): forward + backward time, initialisation, what recording adds, and the record's size.
Issue 16's goals: a page run's step <= 3x PyTorch eager (one thread), the engine alone <= 2x,
recording <= 30% over the engine alone, initialisation <= 2x PyTorch's. Prints a table; ratios are
measured in one run, interleaved, on this noisy machine.

    .venv/bin/python bench/models.py [--repeat 3] [--only nanogpt,resnet] [--clock cpu] [--no-page]
    .venv/bin/python bench/models.py --memory [--only gpt2_small]

`--clock cpu` times the steps in CPU seconds of this process (torch and BLAS run one thread), which a
shared machine's load moves far less than wall time. `--memory` runs each model's setup and one step
in fresh processes — real PyTorch, the engine alone, the engine under the recorder (run_user_code
with the sandbox's ValueStore) — and prints each one's peak RSS (issue 16: GPT-2 small's peak <= 1.3x
PyTorch's). Page runs get a 3 GB memory limit here (DAGSCOPE_RUN_MEMORY_MB; the default is 1 GB):
GPT-2 small's step needs more than 1 GB in PyTorch too.

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
import json  # noqa: E402
import re  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
MODELS = Path(__file__).resolve().parent / "models"
SETUP, STEP = "# --- bench: setup ---", "# --- bench: step ---"


# A model file may borrow another's definitions instead of holding a copy: its first line names the file
# (gpt2_small.py is nanoGPT's model.py, unmodified, with GPT-2 small's configuration).
BORROWS = re.compile(r"# bench: the definitions of (\w+)\.py\n")


def program(name: str) -> str:
    """The whole program a teacher would paste for bench/models/NAME.py."""
    source = (MODELS / f"{name}.py").read_text()
    borrowed = BORROWS.match(source)
    if borrowed is None:
        return source
    head, _, _ = split(program(borrowed.group(1)))
    return head + source


def split(source: str) -> tuple[str, str, str]:
    head, rest = source.split(SETUP, 1)
    setup, step = rest.split(STEP, 1)
    return head, setup, step


clock = time.perf_counter          # --clock cpu: time.process_time


def timed_steps(head: str, setup: str, step: str, repeat: int) -> dict:
    """Run the program's parts in this process (under whichever `torch` is importable now)."""
    ns: dict = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(head, "<model>", "exec"), ns)
        t0 = clock()
        exec(compile(setup, "<setup>", "exec"), ns)
        init = clock() - t0
        code, steps = compile(step, "<step>", "exec"), []
        for _ in range(repeat + 1):               # the first step warms caches
            t0 = clock()
            exec(code, ns)
            steps.append(clock() - t0)
    return {"init": init, "first": steps[0], "step": min(steps[1:]) if repeat else steps[0]}


def with_real_torch(head, setup, step, repeat):
    from peer import real_torch
    torch = real_torch()
    if torch is None:
        return None
    torch.set_num_threads(1)
    return timed_steps(head, setup, step, repeat)


def with_engine(head, setup, step, repeat, c_kernels: bool = True):
    """The engine alone; c_kernels=False runs engine/ops' numpy code where nnkernels.c has a twin
    (the same bits: the 'before' of those kernels, measured in the same run)."""
    from engine import compat
    from engine.ops import kernels
    module = kernels.module
    kernels.use(module if c_kernels else None)
    try:
        with compat.installed():
            return timed_steps(head, setup, step, repeat)
    finally:
        kernels.use(module)


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


def peak_child(side: str, name: str) -> None:
    """One side's setup and one step in this (fresh) process; prints its peak RSS as JSON."""
    def rss_mb() -> float:
        with open("/proc/self/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 1e6
    source = program(name)
    if side == "recorded":
        from engine.record.values import ValueStore
        from engine.runner import run_user_code
        from app.config import Settings
        base, t0 = rss_mb(), time.process_time()
        record = run_user_code(source, values=ValueStore(int(Settings().run_values_mb * 2**20)))
        if record.get("error"):
            raise SystemExit(f"{name}: {record['error']}")
    else:
        head, setup, step = split(source)
        if side == "torch":
            from peer import real_torch
            torch = real_torch()
            if torch is None:
                raise SystemExit("no torch")
            torch.set_num_threads(1)
            context = contextlib.nullcontext()
        else:
            from engine import compat
            context = compat.installed()
        base, t0 = rss_mb(), time.process_time()
        with context, contextlib.redirect_stdout(io.StringIO()):
            ns: dict = {"__name__": "__main__"}
            for part in (head, setup, step):
                exec(compile(part, "<model>", "exec"), ns)
    print(json.dumps({"peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3, "base_mb": base,
                      "cpu_s": time.process_time() - t0}))


def memory(names: list[str]) -> None:
    print(f"{'model':<22} {'side':<9} {'peak MB':>8} {'before MB':>9} {'peak / torch':>12} {'CPU s':>6}")
    for name in names:
        rows = {}
        for side in ("torch", "engine", "recorded"):
            out = subprocess.run([sys.executable, __file__, "--child", side, name], capture_output=True, text=True)
            if out.returncode:
                print(f"{name:<22} {side:<9} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            rows[side] = json.loads(out.stdout.strip().splitlines()[-1])
        torch_peak = rows.get("torch", {}).get("peak_mb")
        for side, r in rows.items():
            ratio = f"{r['peak_mb'] / torch_peak:.2f}x" if torch_peak else "-"
            print(f"{name:<22} {side:<9} {r['peak_mb']:>8.0f} {r['base_mb']:>9.0f} {ratio:>12} {r['cpu_s']:>6.2f}")
    print("\npeak MB: the process's peak resident memory (ru_maxrss) over setup and one step; before MB: its resident"
          "\nmemory before the program (imports: torch's own libraries, or numpy and the engine); recorded: the"
          "\nprogram under the run recorder in process (run_user_code with the sandbox's ValueStore), no sandbox.")


def main() -> None:
    global clock
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall")
    ap.add_argument("--no-page", action="store_true", help="torch and the engine alone only")
    ap.add_argument("--numpy-kernels", action="store_true",
                    help="also the engine with engine/ops' C kernels off (numpy's passes), the 'before' column")
    ap.add_argument("--memory", action="store_true", help="peak memory of each side, fresh processes")
    ap.add_argument("--child", nargs=2, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        return peak_child(*args.child)
    clock = time.process_time if args.clock == "cpu" else time.perf_counter
    os.environ.setdefault("DAGSCOPE_ALLOWED_HOSTS", "testserver")
    os.environ.setdefault("DAGSCOPE_RUN_TIMEOUT", "120")
    os.environ.setdefault("DAGSCOPE_RUN_MEMORY_MB", "3072")
    names = [p.stem for p in sorted(MODELS.glob("*.py"))]
    if args.only:
        names = [n for n in names if n in args.only.split(",")]
    if args.memory:
        return memory(names)
    from fastapi.testclient import TestClient
    from app.main import create_app
    rows, befores = [], {}
    with TestClient(create_app()) if not args.no_page else contextlib.nullcontext() as client:
        for name in names:
            source = program(name)
            parts = split(source)
            real = with_real_torch(*parts, args.repeat)
            before = with_engine(*parts, args.repeat, c_kernels=False) if args.numpy_kernels else None
            ours = with_engine(*parts, args.repeat)
            page = page_run(client, source) if client else None
            rows.append((name, real, ours, page))
            if before:
                befores[name] = before
            print(f"measured {name}", file=sys.stderr)
    ratio = lambda a, b: f"{a / b:.2f}x" if b else "-"   # noqa: E731
    print(f"{'model':<22} {'torch step':>10} {'engine':>8} {'page step':>10} {'eng/torch':>9} {'page/torch':>10} "
          f"{'request':>8} {'record +':>8} {'MB':>5} {'init torch':>10} {'init ours':>9} {'ratio':>6}")
    for name, real, ours, page in rows:
        t = real["step"] if real else 0
        engine_alone = ours["init"] + ours["first"]
        if page:
            page_cols = (f"{page['step']:>10.3f} {ratio(ours['step'], t):>9} {ratio(page['step'], t):>10} "
                         f"{page['request']:>8.2f} {(page['elapsed'] / engine_alone - 1) * 100:>7.0f}% {page['mb']:>5.1f}")
        else:
            page_cols = f"{'-':>10} {ratio(ours['step'], t):>9} {'-':>10} {'-':>8} {'-':>8} {'-':>5}"
        print(f"{name:<22} {t:>10.3f} {ours['step']:>8.3f} {page_cols} "
              f"{(real['init'] if real else 0):>10.3f} {ours['init']:>9.3f} "
              f"{ratio(ours['init'], real['init'] if real else 0):>6}")
    if befores:
        print(f"\n{'model':<22} {'engine, numpy kernels':>21} {'engine, C kernels':>17} {'before / torch':>14} "
              f"{'after / torch':>13}")
        for name, real, ours, _ in rows:
            t = real["step"] if real else 0
            b = befores[name]["step"]
            print(f"{name:<22} {b:>21.3f} {ours['step']:>17.3f} {ratio(b, t):>14} {ratio(ours['step'], t):>13}")
    print(f"\nstep ({args.clock} s): forward + backward (+ optimizer step where the program has one), best of the repeats after one"
          "\nwarm-up; page step: the one step of a page run, timed by the program inside the sandbox (wall s, cold,"
          "\nwith the recorder listening); record +: the page run's elapsed time over the engine alone's"
          "\ninit + first step (what recording and the run's set-up add); MB: the run record's JSON.")


if __name__ == "__main__":
    main()
