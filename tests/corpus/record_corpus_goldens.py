"""Record what the real libraries print for the corpus's programs (tests/corpus/goldens/LANG/NAME.out).

    .venv/bin/python tests/corpus/record_corpus_goldens.py torch                 # every torch program
    .venv/bin/python tests/corpus/record_corpus_goldens.py tensorflow tf_guide_autodiff
    .venv/bin/python tests/corpus/record_corpus_goldens.py --check torch         # compare, write nothing

It is tests/engine/record_goldens.py's mechanism (the child that imports the real library and
refuses Dagscope's facade or another version, one thread, object addresses left out), run with the
corpus's sources (each program after its helper modules' prelude, see corpus.py), in a scratch
folder (programs save checkpoints where they stand).

Only a program whose printout is the library's own answer gets a golden: each program is run twice,
each time after reseeding every random generator from the OS, and a program that prints the same
both times is deterministic (seeded, or random-free) and its printout is the golden. One that
prints differently (unseeded, timings, the order of a set) gets none, and neither does one the
library raised on; MANIFEST.json says which and why, beside the sha256 of each golden and of what
was run (the program after its helper modules' prelude) (test_corpus.py checks them, so a golden edited by hand fails).
"""
from __future__ import annotations

import argparse
import concurrent.futures
import dataclasses
import json
import pathlib
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "engine"))

import record_goldens  # noqa: E402  (tests/engine/record_goldens.py)
from corpus import programs  # noqa: E402

RESEED = {"torch": "torch.seed()\nimport random, numpy\nrandom.seed()\nnumpy.random.seed()",
          "tensorflow": "import random, numpy\nrandom.seed()\nnumpy.random.seed()",
          "jax": "import random, numpy\nrandom.seed()\nnumpy.random.seed()"}     # (jax.random is keyed: never unseeded)


def library(language: str) -> record_goldens.Library:
    # TensorFlow's programs run one child each (tf.compat.v1 turns eager mode off for the process);
    # torch's share one (an import of torch per program took 14 minutes for 31 programs on a busy machine)
    return dataclasses.replace(record_goldens.LIBRARIES[language], folder=HERE / language,
                               before_each=RESEED[language])


def golden_folder(language: str) -> pathlib.Path:
    return HERE / "goldens" / language


def load_manifest(language: str) -> dict:
    path = golden_folder(language) / "MANIFEST.json"
    return json.loads(path.read_text()) if path.exists() else {"programs": {}}


def twice(language: str, names: list[str], sources: dict[str, str]) -> tuple[dict, dict, dict]:
    """Each program's result from two separate runs of the real library (two at a time)."""
    lib = library(language)
    runs: list[dict] = [{}, {}]
    about: dict = {}
    # torch's programs share a child per eight (all 54 in one took more than record_goldens' 15-minute
    # limit on a busy machine)
    groups = [[n] for n in names] if lib.isolate else [names[i:i + 8] for i in range(0, len(names), 8)]
    with tempfile.TemporaryDirectory(prefix="dagscope-corpus-") as scratch, \
            concurrent.futures.ThreadPoolExecutor(2) as pool:
        def one(attempt: int, group: list[str]):
            folder = pathlib.Path(scratch) / f"{attempt}-{group[0]}"
            folder.mkdir()
            return attempt, record_goldens.library_outputs(lib, group, sources=sources, cwd=str(folder))
        for attempt, (results, about) in pool.map(lambda job: one(*job), [(a, g) for g in groups for a in (0, 1)]):
            runs[attempt].update(results)
    return runs[0], runs[1], about


def record(language: str, names: list[str], check_only: bool = False) -> int:
    known = [p.name for p in programs(language)]
    names = names or known
    unknown = sorted(set(names) - set(known))
    if unknown:
        raise SystemExit(f"no such program in tests/corpus/{language}: {', '.join(unknown)}")
    # what is run (the program after its helpers' prelude), read once: the sha256 kept is of what was recorded
    sources = {p.name: p.run_source() for p in programs(language) if p.name in names}
    first, second, about = twice(language, names, sources)
    manifest = load_manifest(language)
    folder = golden_folder(language)
    folder.mkdir(parents=True, exist_ok=True)
    changed = 0
    for name in names:
        source = sources[name]
        a, b = first[name], second[name]
        golden = folder / f"{name}.out"
        old = golden.read_text() if golden.exists() else None
        if a["error"] is not None:
            entry = {"golden": False, "why": f"{language} raised {a['error']}"}
        elif a["stdout"] != b["stdout"]:
            entry = {"golden": False, "why": "two runs of the library printed different output (unseeded "
                                             "randomness, timings or a set's order): only that it runs is checked"}
        else:
            entry = {"golden": True, "library_sha256": record_goldens.sha256(a["stdout"])}
        entry.update(program_sha256=record_goldens.sha256(source), library_version=about.get("version"))
        new = a["stdout"] if entry["golden"] else None
        state = "unchanged" if old == new else ("new" if old is None else ("removed" if new is None else "changed"))
        print(f"{language}/{name}: {state}" + ("" if entry["golden"] else f"  (no golden: {entry['why'][:90]})"))
        changed += state != "unchanged"
        if check_only:
            continue
        if new is None:
            golden.unlink(missing_ok=True)
        else:
            golden.write_text(new)
        manifest["programs"][name] = entry
    if not check_only:
        manifest.update({"library": language, "recorded_with": about,
                         "note": "written by tests/corpus/record_corpus_goldens.py: NAME.out is what the library "
                                 "printed, for each program that printed the same in two runs"})
        manifest["programs"] = {n: e for n, e in sorted(manifest["programs"].items()) if n in known}
        (folder / "MANIFEST.json").write_text(json.dumps(manifest, indent=1, sort_keys=True) + "\n")
    return 1 if check_only and changed else 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("language", choices=["torch", "tensorflow", "jax"])
    parser.add_argument("names", nargs="*", help="programs to record (default: all of the language's folder)")
    parser.add_argument("--check", action="store_true", help="compare with the stored goldens, write nothing")
    args = parser.parse_args()
    return record(args.language, args.names, args.check)


if __name__ == "__main__":
    sys.exit(main())
