"""app/sandbox/record_schema.py on real records: what the engine writes passes unchanged (the
schema bounds hostile records, not lessons), and each bound refuses what it is for."""
import json
from pathlib import Path

import pytest

from app.sandbox import record_schema

FIXTURES = sorted((Path(__file__).resolve().parents[1] / "browser" / "fixtures").glob("*.json"))


@pytest.mark.parametrize("path", FIXTURES, ids=lambda p: p.stem)
def test_a_real_record_passes_whole(path):
    data = json.loads(path.read_text())
    record, code = data.get("record", data), data.get("code", "")
    checked = record_schema.validate(record_schema.parse(json.dumps(record).encode()),
                                     len(code.splitlines()), 200_000)
    for field in record_schema.CHILD_FIELDS:
        assert checked.get(field) == record.get(field, checked.get(field)), field   # summaries: only if logged
    assert "sandbox" not in checked and "limits" not in checked and "ok" not in checked


@pytest.mark.parametrize("data, why", [
    (b"[" * 49 + b"]" * 49, "not an object"), (b'{"a":' + b"[" * 48 + b"]" * 48 + b"}", "deeper than 48"),
    (b'{"a": [' + b"0," * 200_000 + b"0]}", "entries"), (b'{"a": -Infinity}', "strict JSON"),
    (b'{"a": 1e400}', "finite"), (b'{"a": -' + b"9" * 30 + b"}", "out of range"), (b"\xff", "strict JSON"),
])
def test_each_bound_refuses(data, why):
    with pytest.raises(record_schema.Malformed, match=why):
        record_schema.parse(data)


def test_a_line_the_code_does_not_have_is_not_believed():
    raw = {"error": {"kind": "runtime_error", "type": "E", "message": "m", "line": 4, "traceback": ""},
           "graphs": [{"id": "g1", "kind": "dynamic", "forward": {"nodes": [{"id": "n1", "line": 3}], "edges": []}}]}
    two_lines = record_schema.validate(json.loads(json.dumps(raw)), 2, 100)
    assert two_lines["error"]["line"] is None and two_lines["graphs"][0]["forward"]["nodes"][0]["line"] is None
    five_lines = record_schema.validate(json.loads(json.dumps(raw)), 5, 100)
    assert five_lines["error"]["line"] == 4 and five_lines["graphs"][0]["forward"]["nodes"][0]["line"] == 3


def test_steps_are_objects_whose_gradients_are_lists_or_null():
    """A step past the record's budget of step gradients has grad_in and grad_out null; any other
    type there (or a step that is not an object) leaves the graph out, with a note."""
    def graph(gid, steps):
        return {"id": gid, "kind": "dynamic", "forward": {"nodes": [], "edges": []}, "steps": steps}
    good = [{"index": 0, "grad_in": [None], "grad_out": []}, {"index": 1, "grad_in": None, "grad_out": None}]
    raw = {"graphs": [graph("g1", good), graph("g2", [{"grad_in": "x", "grad_out": None}]),
                      graph("g3", [{"grad_in": None, "grad_out": 3}]), graph("g4", ["step"])]}
    checked = record_schema.validate(json.loads(json.dumps(raw)), 5, 100)
    assert [g["id"] for g in checked["graphs"]] == ["g1"] and checked["graphs"][0]["steps"] == good
    assert sum("grad_in and grad_out are lists or null" in w for w in checked["warnings"]) == 3


def _with_notes(notes) -> dict:
    return {"graphs": [{"id": "g1", "kind": "static", "passes": [{"name": "cse", "notes": notes}]}]}


GOOD_NOTE = {"node": "%5", "reason": "CSE: same as %3", "key": "pass_note.cse_same", "params": {"first": "%3"}}


@pytest.mark.parametrize("notes", [
    [GOOD_NOTE], [{"node": "%5", "reason": "x*1 -> x"}], [{"node": None, "reason": "r"}],
    [{**GOOD_NOTE, "params": {"ties": ["%1", "%2"], "n": 2}}],
])
def test_pass_notes_with_messages_pass(notes):
    checked = record_schema.validate(json.loads(json.dumps(_with_notes(notes))), 3, 100)
    assert checked["graphs"][0]["passes"][0]["notes"] == notes


@pytest.mark.parametrize("notes", [
    "CSE", [7], [{"reason": "r"}], [{"node": "%5"}], [{**GOOD_NOTE, "html": "<b>"}],
    [{**GOOD_NOTE, "key": "status.ok"}], [{**GOOD_NOTE, "key": "pass_note.A"}], [{**GOOD_NOTE, "key": 3}],
    [{"node": "%5", "reason": "r", "key": "pass_note.cse_same"}], [{"node": "%5", "reason": "r", "params": {}}],
    [{**GOOD_NOTE, "params": {"First": "%3"}}], [{**GOOD_NOTE, "params": {"first": {"x": 1}}}],
    [{**GOOD_NOTE, "params": {"first": True}}], [{**GOOD_NOTE, "params": {"first": 1.5}}],
    [{**GOOD_NOTE, "params": {"first": "a" * 1001}}], [{**GOOD_NOTE, "params": {"ties": ["%1"] * 65}}],
    [{**GOOD_NOTE, "params": {"ties": [1, 2]}}], [{**GOOD_NOTE, "params": {f"p{c}": "x" for c in "abcdefghi"}}],
    [{**GOOD_NOTE, "node": "not an id!"}], [{**GOOD_NOTE, "reason": ["r"]}],
])
def test_malformed_pass_notes_leave_the_graph_out(notes):
    checked = record_schema.validate(json.loads(json.dumps(_with_notes(notes))), 3, 100)
    assert checked["graphs"] == []
    assert any("Graph 1 of the run's record was malformed" in w and "cse" in w for w in checked["warnings"])


TRAINING = """import torch
w = torch.tensor([[1.0, -2.0], [0.5, 3.0]], requires_grad=True)
for step in range(5):
    loss = (w * w).sum()
    loss.backward()
    with torch.no_grad():
        w -= 0.1 * w.grad
    w.grad = None
"""


def _trained() -> dict:
    from engine.runner import run_user_code
    return json.loads(json.dumps(run_user_code(TRAINING)))


def test_a_real_trajectory_passes_whole():
    record = _trained()
    checked = record_schema.validate(json.loads(json.dumps(record)), TRAINING.count("\n"), 200_000)
    assert checked["graphs"][0]["trajectory"] == record["graphs"][0]["trajectory"]
    assert not checked.get("warnings")


@pytest.mark.parametrize("forge, why", [
    (lambda t: t.update(extra=1), "fields"),
    (lambda t: t.update(iterations=[0, 0]), "ascending"),
    (lambda t: t.update(iterations=t["iterations"][:-1] + [10 ** 6]), "below its total"),
    (lambda t: t["loss"].append(1.0), "loss"),
    (lambda t: t["loss"].__setitem__(0, "1e3"), "loss"),
    (lambda t: t["series"][0].update(node="n999"), "series"),
    (lambda t: t["series"][0].update(node="<img src=x>"), "series"),
    (lambda t: t["series"][0]["stats"].__setitem__(1, [1, 2, 3]), "four numbers"),
    (lambda t: t["series"][0]["strip"].__setitem__(1, [0.5] * 9), "strip"),
    (lambda t: t["series"][0]["strip"].__setitem__(1, [{"a": 1}]), "strip"),
    (lambda t: t["tensors"][0]["at"].__setitem__(0, {"shape": "x", "dtype": "float32"}), "shape and dtype"),
    (lambda t: t["tensors"][0]["at"].__setitem__(0, {"shape": [2], "dtype": "f", "values": "../x"}), "shape and dtype"),
    (lambda t: t["steps"].append({"iteration": 77, "steps": []}), "steps"),
    (lambda t: t.update(steps=[{"iteration": 1, "steps": []}] * 17), "short list"),
    (lambda t: t["steps"][0]["steps"][0].update(grad_in=None), "steps"),
])
def test_a_forged_trajectory_is_left_out_with_a_note(forge, why):
    record = _trained()
    forge(record["graphs"][0]["trajectory"])
    checked = record_schema.validate(record, TRAINING.count("\n"), 200_000)
    graph = checked["graphs"][0]
    assert "trajectory" not in graph and graph["forward"]["nodes"]       # the graph itself stays
    assert any("trajectory was malformed" in w and why in w for w in checked["warnings"]), checked["warnings"]
