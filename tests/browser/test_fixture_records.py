"""The browser tests' fixture records still match what the engine records for the same code (no
browser needed): when this fails, rerun tests/browser/fixtures/make_records.py."""
import pytest

from tests.browser.fixtures.make_records import NAMES, load, record_of


def shape_of(record: dict) -> list:
    """What the browser tests rely on, without values and timings that vary run to run."""
    out = []
    for g in record["graphs"]:
        out.append({"id": g["id"], "kind": g["kind"], "capture": g.get("capture"), "title": g["title"],
                    "nodes": [(n["id"], n["op"], n.get("line")) for n in g["forward"]["nodes"]],
                    "passes": [(p["name"], p["removed"], p["added"], p["changed"]) for p in g.get("passes") or []],
                    "kernels": sorted((k.get("graph"), sorted(k["nodes"])) for k in g.get("kernels") or []),
                    "frozen": g.get("frozen"),
                    "calls": [(c["index"], c.get("stale")) for c in g.get("calls") or []]})
    return out


@pytest.mark.parametrize("name", NAMES)
def test_fixture_record_matches_a_fresh_run(name):
    fixture = load(name)
    fresh = record_of(name)
    assert shape_of(fresh) == shape_of(fixture["record"]), f"rerun tests/browser/fixtures/make_records.py ({name})"
    assert fresh["stdout"] == fixture["record"]["stdout"]
