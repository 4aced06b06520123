"""Run the whole corpus through POST /api/run and write the table and headline of tests/corpus/README.md
(between its `<!-- corpus table -->` markers), and print the missing names, most common first.

    .venv/bin/python tests/corpus/report.py            # rewrite the README's table
    .venv/bin/python tests/corpus/report.py --check    # print only

What it writes is what the runs reported: a program runs if POST /api/run returned ok and at least
one graph; its numbers match if it has a golden and its printout agrees with it (printed_output.py).
"""
from __future__ import annotations

import argparse
import collections
import os
import pathlib
import re
import sys

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parents[1]))
os.environ.setdefault("DAGSCOPE_ALLOWED_HOSTS", "testserver")
os.environ["DAGSCOPE_UNLIMITED_CLIENTS"] = "testclient"

import test_corpus  # noqa: E402
from expectations import FLOAT32_NOISE  # noqa: E402
from test_corpus import BY_ID, PROGRAMS, allowed_noise, failure, golden_path, run_all, why_not_agree  # noqa: E402

START, END = "<!-- corpus table -->", "<!-- end of corpus table -->"


def missing_name(record: dict) -> str | None:
    """The one name or module a failed run says is missing (or its error in short)."""
    error = record.get("error")
    if not error:
        return None if record["graphs"] else "no graph drawn"
    message = error.get("message") or ""
    for pattern in (r"^(\S+?) is not supported by Dagscope", r"`import ([\w.]+)`", r"^Tensor\.(\w+) is not supported",
                    r"cannot import name '(\w+)' from '([\w.]+)'", r"No module named '([\w.]+)'"):
        match = re.search(pattern, message)
        if match:
            if pattern.startswith("^Tensor"):
                return f"Tensor.{match[1]}"
            if "cannot import" in pattern:
                return f"{match[2].replace('engine.compat.', '')}.{match[1]}"
            return match[1]
    if "marshal" in message:
        return "a standard-library module (sandbox: 'loading raw code (marshal)')"
    if error.get("kind") == "timeout":
        return "time: stopped after the run's time limit"
    return f"{error.get('type')}: {message[:120]}"


def _manifest(language: str) -> dict:
    import json
    path = HERE / "goldens" / language / "MANIFEST.json"
    return json.loads(path.read_text())["programs"] if path.exists() else {}


def rows(records: dict) -> list[dict]:
    out = []
    manifests = {lang: _manifest(lang) for lang in ("torch", "tensorflow", "jax")}
    for p in PROGRAMS:
        record = records[p.id]
        runs = bool(record["ok"] and record["graphs"])
        has_golden = golden_path(p).exists()
        numbers = None
        if has_golden and record["ok"]:
            numbers = why_not_agree(record["stdout"], golden_path(p).read_text(), atol=allowed_noise(p.id)) is None
        origin = p.origin()
        entry = manifests[p.language].get(p.name)
        why = "not recorded yet" if entry is None else ("" if entry["golden"] else
                                                         ("varies run to run" if "two runs" in entry["why"] else entry["why"]))
        out.append({"id": p.id, "source": f"{origin['repo']} `{origin['path']}`", "runs": runs, "why": why,
                    "golden": has_golden, "numbers": numbers, "missing": missing_name(record),
                    "seconds": record.get("elapsed_ms", 0) / 1000})
    return out


def table(rs: list[dict]) -> str:
    ran = sum(r["runs"] for r in rs)
    golden = [r for r in rs if r["golden"]]
    match = sum(bool(r["numbers"]) for r in golden)
    lines = [f"**{ran} of {len(rs)} programs run unmodified and draw a graph; {match} of the {len(golden)} "
             f"deterministic ones print the library's numbers** (the other {len(rs) - len(golden)} have no golden: their "
             "printout changes from run to run in the real library too, or was not recorded; only that they run "
             "is checked).", "",
             "| program | source | runs? | numbers match? | what is missing |", "|---|---|---|---|---|"]
    for r in rs:
        numbers = (f"— ({r['why']})" if not r["golden"]
                   else (("yes (float32 noise around 0, see expectations.py)" if r["id"] in FLOAT32_NOISE else "yes")
                         if r["numbers"] else ("no" if r["numbers"] is False else "not run")))
        lines.append(f"| `{r['id']}` | {r['source']} | {'yes' if r['runs'] else 'no'} | {numbers} | "
                     f"{(r['missing'] or '').replace('|', '/')} |")
    return "\n".join(lines) + "\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="print, do not rewrite the README")
    parser.add_argument("--save", help="also keep the run records in this JSON file")
    parser.add_argument("--records", help="use the run records kept by --save instead of running the corpus")
    args = parser.parse_args()
    import json
    if args.records:
        records = json.loads(pathlib.Path(args.records).read_text())
    else:
        from fastapi.testclient import TestClient
        from app.main import create_app
        with TestClient(create_app()) as client:
            records = run_all(client)
    if args.save:
        pathlib.Path(args.save).write_text(json.dumps(records))
    rs = rows(records)
    counts = collections.Counter(r["missing"] for r in rs if r["missing"])
    for name, n in counts.most_common():
        print(f"{n:3d}  {name}")
    print(f"slowest: {sorted(((r['seconds'], r['id']) for r in rs), reverse=True)[:5]}")
    if not args.check:
        readme = HERE / "README.md"
        text = readme.read_text()
        head, rest = text.split(START, 1)
        _, tail = rest.split(END, 1)
        readme.write_text(head + START + "\n" + table(rs) + END + tail)
    else:
        print(table(rs))
    return 0


if __name__ == "__main__":
    sys.exit(main())
