"""What recording costs over the engine alone (issue 16's goal: <= 30%), in CPU seconds, program by
program, each measurement in a fresh process that has imported the engine first (as the sandbox's
zygote has):

- engine alone: the whole program under the facades, no recorder;
- recorded: `engine.runner.run_user_code` with the values store a sandboxed run has (the child's
  InPlaceValues writing into a 128 MB values memfd; ValueStore in a tree without it), then the
  record's JSON as the sandbox child encodes it (`app/sandbox/child.py`'s encode_record).

Beside the CPU, each side's minor page faults and peak RSS: what the recorder keeps alive through
the walk (every step's gradient, every forward value) puts the engine's allocations on fresh pages.

The two alternate (alone, recorded, alone, recorded, ...) so the load moves both alike; the table
gives the minimum of each and their ratio, the record's size and what the store kept. CPU time,
not wall: others share this machine.

    .venv/bin/python bench/record_cost.py [--repeat 3] [--only nanogpt,lstm_lm] [--corpus torch/ex_time_sequence_prediction]
"""
from __future__ import annotations

import os

for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):   # one thread, as runs have
    os.environ.setdefault(_var, "1")

import argparse  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
from pathlib import Path  # noqa: E402

ROOT = Path(__file__).resolve().parent.parent
MODELS = ROOT / "bench" / "models"

_CHILD = r"""
import contextlib, gc, io, json, resource, sys, time
sys.path.insert(0, {root!r})
from engine import compat, native
from engine.runner import register_source, run_user_code
from engine.record.values import ValueStore, _native_stats
try:
    from engine.record.trajectory import _native_strip
except ImportError:                            # (an older tree, --before)
    _native_strip = lambda: None
try:
    from engine.record.values import _native_summary
except ImportError:                            # (an older tree, --before)
    _native_summary = lambda: None
from engine.user_code import USER_FILENAME
from app.sandbox.child import encode_record
try:                                           # the sandbox child's store, writing into its values memfd
    from app.sandbox.child import InPlaceValues
    from app.sandbox.protocol import values_memfd
except ImportError:                            # (an older tree, --before)
    InPlaceValues = None
native.loaded(); _native_stats(); _native_summary(); _native_strip()  # (as the zygote)
gc.collect(); gc.freeze()                      # as the zygote: what was imported is out of the GC's sight
source = sys.stdin.read()
out = {{}}
faults = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
if {recorded!r}:
    store = ValueStore(128 << 20) if InPlaceValues is None else InPlaceValues(values_memfd(128 << 20), 128 << 20)
    cpu = time.process_time()
    record = run_user_code(source, {{}}, values=store)
    run = time.process_time() - cpu
    payload = encode_record(record, 8 << 20)
    out = {{"run": run, "json": time.process_time() - cpu - run, "mb": len(payload) / 1e6,
            "kept_mb": store.size / 1e6, "error": (record.get("error") or {{}}).get("message")}}
else:
    register_source(source)
    code = compile(source, USER_FILENAME, "exec")
    sys.argv = [USER_FILENAME]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()), compat.installed():
        cpu = time.process_time()
        exec(code, {{"__name__": "__main__", "__file__": USER_FILENAME}})
        out = {{"run": time.process_time() - cpu, "json": 0.0}}
out["total"] = out["run"] + out["json"]
usage = resource.getrusage(resource.RUSAGE_SELF)
out["faults"], out["peak_mb"] = usage.ru_minflt - faults, usage.ru_maxrss / 1e3
print(json.dumps(out))
"""


def measure(source: str, recorded: bool, root: Path = ROOT) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD.format(root=str(root), recorded=recorded)],
                          input=source, text=True, capture_output=True, timeout=900, cwd=str(root))
    if done.returncode:
        raise SystemExit(done.stderr[-2000:])
    return json.loads(done.stdout.strip().splitlines()[-1])


def programs(args) -> list[tuple[str, str]]:
    chosen = []
    for path in sorted(MODELS.glob("*.py")):
        if not args.only or path.stem in args.only.split(","):
            chosen.append((path.stem, path.read_text()))
    if args.corpus:
        sys.path.insert(0, str(ROOT / "tests" / "corpus"))
        from corpus import programs as corpus_programs
        by_id = {p.id: p for p in corpus_programs()}
        chosen += [(name, by_id[name].run_source()) for name in args.corpus.split(",")]
    return chosen


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--only", default="", help="comma-separated bench/models names")
    parser.add_argument("--corpus", default="", help="comma-separated corpus program ids")
    parser.add_argument("--before", default="", help="another checkout (e.g. `git archive <commit>` unpacked): "
                        "measured too, interleaved, its rows marked 'before'")
    args = parser.parse_args()
    trees = [("", ROOT)] + ([(" (before)", Path(args.before).resolve())] if args.before else [])
    rows = []
    for name, source in programs(args):
        runs = {label: ([], []) for label, _ in trees}
        for _ in range(args.repeat):
            for label, root in trees[::-1]:
                runs[label][0].append(measure(source, False, root))
                runs[label][1].append(measure(source, True, root))
        for label, _ in trees[::-1]:
            rows.append((name + label, *runs[label]))
        print(f"  {name} (load {os.getloadavg()[0]:.1f})", file=sys.stderr, flush=True)
    print(f"load average {' '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} cores; "
          f"min of {args.repeat} alternating runs, CPU s\n")
    print("| program | engine alone | recorded run | record JSON | recorded total | record + | record MB | kept MB "
          "| page faults alone / recorded | peak RSS MB alone / recorded |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for name, alone, recorded in rows:
        a = min(r["total"] for r in alone)
        best = min(recorded, key=lambda r: r["total"])
        quiet = min(alone, key=lambda r: r["total"])
        # (faults and peak: the memory the recorder holds through the walk; an older tree's child
        # script has none)
        memory = (f"{quiet.get('faults', 0):,} / {best.get('faults', 0):,} | "
                  f"{quiet.get('peak_mb', 0):.0f} / {best.get('peak_mb', 0):.0f}")
        print(f"| {name} | {a:.3f} | {best['run']:.3f} | {best['json']:.3f} | {best['total']:.3f} | "
              f"{(best['total'] / a - 1) * 100:.0f}% | {best['mb']:.2f} | {best['kept_mb']:.1f} | {memory} |")
        if best.get("error"):
            print(f"|   (the recorded run failed: {best['error'][:100]}) |")


if __name__ == "__main__":
    main()
