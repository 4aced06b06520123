"""Record the goldens: what the real library prints for each program of a sweep folder.

    .venv/bin/python tests/engine/record_goldens.py torch                  # all of tests/engine/torch_sweep
    .venv/bin/python tests/engine/record_goldens.py torch 36_numerics_stability 326_gelu_vs_relu_tails
    .venv/bin/python tests/engine/record_goldens.py tensorflow             # tests/engine/tf_sweep
    .venv/bin/python tests/engine/record_goldens.py --check torch          # compare only, write nothing

`make test` builds a .venv with PyTorch (the pinned CPU build); `make test-oracles` adds TensorFlow
and JAX. Each program runs in a child process that imports the real library (never Dagscope's
facade: the child refuses if the import resolves inside this repository or to another version than
the pinned one), one thread, each program in a fresh namespace; `NAME.out` is what it printed,
object addresses left out. A program the library could not run gets no golden: an uncaught error
is reported and nothing is written for it.

Beside the goldens, MANIFEST.json keeps how they were made (library version, threads, CPU
dispatch level, machine) and, per program, the sha256 of its source, of the library's output
(= the golden) and of Dagscope's output at the time. `test_goldens_are_the_librarys.py` checks every
golden against it, so a golden edited by hand (say, to Dagscope's output) fails until it is
recorded again from the library.
"""
from __future__ import annotations

import argparse
import dataclasses
import hashlib
import json
import os
import pathlib
import platform
import re
import subprocess
import sys

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ADDRESS = re.compile(r" at 0x[0-9a-fA-F]+")     # an object's address differs from run to run


@dataclasses.dataclass(frozen=True)
class Library:
    module: str             # what the programs import
    version: str            # the release the goldens come from (a prefix of __version__)
    folder: pathlib.Path
    setup: str              # run in the child before the programs: one thread, as recorded
    describe: str           # an expression in the child: details of the build worth recording
    isolate: bool = False   # a child per program (TF's eager mode is global: tf.compat.v1 turns it off)
    before_each: str = ""   # run in the child before each program (the corpus reseeds, to find unseeded ones)


LIBRARIES = {
    "torch": Library("torch", "2.13.0", HERE / "torch_sweep", "torch.set_num_threads(1)",
                     "{'cpu_capability': torch.backends.cpu.get_cpu_capability(), "
                     "'threads': torch.get_num_threads()}"),
    "tensorflow": Library("tensorflow", "2.21.", HERE / "tf_sweep",
                          "tensorflow.config.threading.set_intra_op_parallelism_threads(1)\n"
                          "tensorflow.config.threading.set_inter_op_parallelism_threads(1)",
                          "{'keras': tensorflow.keras.__version__ if hasattr(tensorflow.keras, '__version__') "
                          "else None, 'threads': 1}", isolate=True),
    # a child per program: jax.config.update("jax_enable_x64", True) in one program is global in JAX
    "jax": Library("jax", "0.", HERE / "jax_sweep", "", "{'devices': [str(d) for d in jax.devices()], 'threads': 1}",
                   isolate=True),
}

# The child: imports the real library, checks it is not Dagscope's, runs each program.
_CHILD = r"""
import contextlib, importlib, io, json, linecache, os, sys
spec = json.load(sys.stdin)
lib = importlib.import_module(spec["module"])
globals()[spec["module"]] = lib
where = os.path.realpath(getattr(lib, "__file__", "") or "")
# inside this repository but not in an installed package (a venv may live in the checkout: CI's does)
in_repository = where.startswith(spec["root"] + os.sep) and "site-packages" not in where.split(os.sep)
if in_repository or "dagscope" in str(getattr(lib, "__version__", "")):
    sys.exit(f"refused: `import {spec['module']}` is Dagscope's facade here ({where}), not the real library")
if not str(lib.__version__).startswith(spec["version"]):
    sys.exit(f"refused: {spec['module']} {lib.__version__} is installed, the goldens are {spec['version']}*")
exec(spec["setup"])
results = {}
for name, code in spec["programs"]:
    out = io.StringIO()
    error = None
    # the source where inspect looks for it: AutoGraph (tf.function) and torch.jit.script read it
    linecache.cache[name + ".py"] = (len(code), None, code.splitlines(True), name + ".py")
    with contextlib.redirect_stdout(out):
        try:
            exec(spec["before_each"])
            exec(compile(code, name + ".py", "exec"), {"__name__": "__main__"})
        except BaseException as exc:
            error = f"{type(exc).__name__}: {exc}"
    results[name] = {"stdout": out.getvalue(), "error": error}
about = {"version": str(lib.__version__), "file": where, **eval(spec["describe"])}
json.dump({"about": about, "results": results}, sys.stdout)
"""


def programs(lib: Library) -> list[str]:
    return sorted(p.stem for p in lib.folder.glob("*.py"))


def sha256(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


def library_outputs(lib: Library, names: list[str], timeout: float = 900, sources: dict | None = None,
                    cwd: str = "/") -> tuple[dict, dict]:
    """({name: {"stdout", "error"}}, about the library) from the real library, in one child
    (or one per program, for a library whose programs change its global mode). `sources` gives a
    program's code where it is not just lib.folder/NAME.py (the corpus adds its helpers' prelude);
    `cwd` is where the child runs (the corpus's programs save files where they stand)."""
    if lib.isolate and len(names) > 1:
        results, about = {}, {}
        for name in names:
            one, about = library_outputs(lib, [name], timeout, sources, cwd)
            results.update(one)
        return results, about
    code = {n: sources[n] if sources else (lib.folder / f"{n}.py").read_text() for n in names}
    spec = {"module": lib.module, "version": lib.version, "root": str(ROOT), "setup": lib.setup,
            "before_each": lib.before_each, "describe": lib.describe, "programs": [[n, code[n]] for n in names]}
    env_threads = {"OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
                   "TF_CPP_MIN_LOG_LEVEL": "2", "XLA_FLAGS": "--xla_cpu_multi_thread_eigen=false"}
    done = subprocess.run([sys.executable, "-c", _CHILD], input=json.dumps(spec), capture_output=True, text=True,
                          timeout=timeout, cwd=cwd, env={**os.environ, **env_threads})
    if done.returncode != 0:
        raise SystemExit(done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "the child failed")
    answer = json.loads(done.stdout)
    for r in answer["results"].values():
        r["stdout"] = ADDRESS.sub("", r["stdout"])
    return answer["results"], answer["about"]


def dagscope_output(code: str) -> str:
    """What Dagscope prints for the program (in this process, as the sweep tests run it)."""
    sys.path.insert(0, str(ROOT))
    from engine.runner import run_user_code
    record = run_user_code(code, {})
    error = record.get("error")
    return record["stdout"] + (f"ERROR {error['type']}: {error['message']}\n" if error else "")


def manifest_path(lib: Library) -> pathlib.Path:
    return lib.folder / "MANIFEST.json"


def load_manifest(lib: Library) -> dict:
    path = manifest_path(lib)
    return json.loads(path.read_text()) if path.exists() else {"programs": {}}


def record(library: str, names: list[str], check_only: bool = False) -> int:
    lib = LIBRARIES[library]
    names = names or programs(lib)
    unknown = [n for n in names if not (lib.folder / f"{n}.py").exists()]
    if unknown:
        raise SystemExit(f"no such program in {lib.folder}: {', '.join(unknown)}")
    results, about = library_outputs(lib, names)
    manifest = load_manifest(lib)
    manifest.update({"library": lib.module, "recorded_with": about, "machine": platform.machine(),
                     "cpu": _cpu_model(), "python": platform.python_version(),
                     "note": "written by tests/engine/record_goldens.py; NAME.out is the library's output, "
                             "sha256 of each beside Dagscope's output when recorded"})
    failed = 0
    for name in names:
        result = results[name]
        golden = lib.folder / f"{name}.out"
        if result["error"] is not None:
            print(f"{name}: {lib.module} raised {result['error']}: no golden written")
            failed += 1
            continue
        old = golden.read_text() if golden.exists() else None
        ours = dagscope_output((lib.folder / f"{name}.py").read_text())
        state = "unchanged" if old == result["stdout"] else ("new" if old is None else "changed")
        print(f"{name}: {state}" + ("" if ours == result["stdout"] else "  (Dagscope's output differs)"))
        if check_only:
            failed += state != "unchanged"
            continue
        golden.write_text(result["stdout"])
        manifest["programs"][name] = {"program_sha256": sha256((lib.folder / f"{name}.py").read_text()),
                                      "library_sha256": sha256(result["stdout"]),
                                      "dagscope_sha256": sha256(ours),
                                      "library_version": about["version"]}
    if not check_only:
        manifest["programs"] = dict(sorted(manifest["programs"].items()))
        manifest_path(lib).write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 1 if failed else 0


def _cpu_model() -> str:
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("library", choices=sorted(LIBRARIES))
    parser.add_argument("names", nargs="*", help="programs to record (default: all of the library's folder)")
    parser.add_argument("--check", action="store_true", help="compare with the stored goldens, write nothing")
    args = parser.parse_args()
    return record(args.library, args.names, args.check)


if __name__ == "__main__":
    sys.exit(main())
