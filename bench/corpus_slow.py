"""The corpus programs that ran into (or near) the run's 10 s limit (tests/corpus/expectations.py's
TOO_SLOW, and those that left it), timed two ways, one program at a time:

- engine alone: the program under the facades in a fresh process (one BLAS thread, no recorder),
  wall and CPU seconds of the program itself (imports of the engine not counted);
- page run: POST /api/run as the corpus test sends it (the sandbox, the recorder, the record), wall
  seconds, and whether it finished inside the limit.

On a shared 2-core machine the wall time is the CPU time times the load's share: the CPU column
is the one to compare between runs; the load average is printed with the table. No timed tests.

    .venv/bin/python bench/corpus_slow.py [--repeat 2] [--only time_sequence,quickstart_advanced]
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # one thread, as runs have
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "corpus"))

PROGRAMS = ["tensorflow/d2l_tf_mlp_concise", "tensorflow/tfex_v2_logistic_regression",
            "tensorflow/tfex_v2_neural_network", "tensorflow/tfdocs_quickstart_advanced",
            "tensorflow/tfdocs_guide_function", "torch/ex_time_sequence_prediction"]

_ALONE = r"""
import contextlib, io, json, sys, time
sys.path.insert(0, {root!r})
from engine import compat
from engine.runner import register_source
from engine.user_code import USER_FILENAME
source = sys.stdin.read()
register_source(source)
code = compile(source, USER_FILENAME, "exec")
sys.argv = [USER_FILENAME]
error = None
with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), compat.installed():
    wall, cpu = time.perf_counter(), time.process_time()
    try:
        exec(code, {{"__name__": "__main__", "__file__": USER_FILENAME}})
    except BaseException as exc:
        error = f"{{type(exc).__name__}}: {{exc}}"[:120]
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
print(json.dumps({{"wall": wall, "cpu": cpu, "error": error}}))
"""


def engine_alone(source: str) -> dict:
    done = subprocess.run([sys.executable, "-c", _ALONE.format(root=str(ROOT))], input=source, text=True,
                          capture_output=True, timeout=600)
    if done.returncode:
        return {"wall": float("nan"), "cpu": float("nan"), "error": done.stderr.strip().splitlines()[-1][:120]}
    return json.loads(done.stdout.strip().splitlines()[-1])


def page_run(client, source: str) -> dict:
    t0 = time.perf_counter()
    record = client.post("/api/run", json={"code": source}).json()
    error = record.get("error") or {}
    return {"wall": time.perf_counter() - t0, "ok": record.get("ok"),
            "error": f"{error.get('type')}: {error.get('message')}"[:120] if error else None}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=2)
    parser.add_argument("--only", default="", help="comma-separated parts of program names")
    args = parser.parse_args()
    from corpus import programs
    by_id = {p.id: p for p in programs()}
    chosen = [p for p in PROGRAMS if not args.only or any(part in p for part in args.only.split(","))]

    os.environ.setdefault("DAGSCOPE_UNLIMITED_CLIENTS", "testclient")
    os.environ.setdefault("DAGSCOPE_ALLOWED_HOSTS", "testserver")
    from fastapi.testclient import TestClient
    from app.main import create_app

    rows = []
    with TestClient(create_app()) as client:
        for name in chosen:
            source = by_id[name].run_source()
            alone = [engine_alone(source) for _ in range(args.repeat)]
            page = [page_run(client, source) for _ in range(args.repeat)]
            rows.append((name, alone, page))
            print(f"  {name}: done (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)

    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"{args.repeat} runs each (min, max)\n")
    print("| program | engine alone CPU s | engine alone wall s | page run wall s | page runs finished |")
    print("|---|---:|---:|---:|---:|")
    for name, alone, page in rows:
        cpu = [a["cpu"] for a in alone]
        wall = [a["wall"] for a in alone]
        page_wall = [p["wall"] for p in page]
        finished = sum(1 for p in page if p["ok"])
        print(f"| {name} | {min(cpu):.1f}-{max(cpu):.1f} | {min(wall):.1f}-{max(wall):.1f} | "
              f"{min(page_wall):.1f}-{max(page_wall):.1f} | {finished}/{len(page)} |")
    for name, alone, page in rows:
        for what, runs in (("engine alone", alone), ("page run", page)):
            errors = {r["error"] for r in runs if r.get("error")}
            for error in errors:
                print(f"\n{name}, {what}: {error}")


if __name__ == "__main__":
    main()
