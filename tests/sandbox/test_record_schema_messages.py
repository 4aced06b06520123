"""The trusted side's check of the record's messages (engine/hooks.py Message): a forged message
is not passed on to the page — a run-wide one is dropped with a note (the warnings still shown as
written), a graph's leaves the graph out."""
import json

import pytest

from app.sandbox import record_schema

STALE = {"key": "warning.stale_trace_at", "params": {
    "line": 7, "title": {"key": "title.traced", "params": {"name": "f"}},
    "reason": {"key": "calls.stale_bool", "params": {"code": "x.sum() > 0", "line": 3,
                                                     "traced": {"key": "calls.true", "params": {}},
                                                     "now": {"key": "calls.false", "params": {}}}}}}


def _validate(raw: dict) -> dict:
    return record_schema.validate(json.loads(json.dumps(raw)), 10, 1000)


def test_real_messages_pass():
    graph = {"id": "g1", "kind": "static", "title": "traced f", "title_message": STALE["params"]["title"],
             "warnings": ["first call: traced", "plain"], "warning_messages": [{"key": "warning.first_call", "params": {}}, None]}
    checked = _validate({"warnings": ["w", "x"], "warning_messages": [STALE, None], "graphs": [graph]})
    assert checked["warning_messages"] == [STALE, None]
    assert checked["graphs"][0]["warning_messages"] == graph["warning_messages"]
    assert checked["graphs"][0]["title_message"] == graph["title_message"]


FORGED = [
    "warning.first_call", [{"key": "warning.first_call"}], [{"key": "warning.first_call", "params": {}, "html": "<b>"}],
    [{"key": "pass_note.cse_same", "params": {}}], [{"key": "status.ok", "params": {}}], [{"key": "warning.A", "params": {}}],
    [{"key": "warning.x", "params": {"quote": True}}], [{"key": "warning.x", "params": {"quote": "q" * 1001}}],
    [{"key": "warning.x", "params": {"a": {"key": "warning.y", "params": {"b": {"key": "warning.z", "params": {
        "c": {"key": "warning.w", "params": {}}}}}}}}],            # nested four deep
    [None, None, None],                                              # more messages than warnings
]


@pytest.mark.parametrize("messages", FORGED)
def test_forged_run_messages_are_dropped_with_a_note(messages):
    checked = _validate({"warnings": ["w", "x"], "warning_messages": messages})
    # none of the run's is passed on; the server's note carries its own (app/sandbox/record_schema.py)
    assert checked["warning_messages"] == [None, None, {"key": "warning.record_bad_messages", "params": {}}]
    assert checked["warnings"][:2] == ["w", "x"]
    assert any("malformed warning messages" in w for w in checked["warnings"])


@pytest.mark.parametrize("field, value", [("warning_messages", m) for m in FORGED]
                         + [("title_message", "traced f"), ("title_message", {"key": "title.traced", "params": []})])
def test_a_graph_with_forged_messages_is_left_out(field, value):
    graph = {"id": "g1", "kind": "static", "title": "traced f", "warnings": ["w", "x"], field: value}
    checked = _validate({"graphs": [graph]})
    assert checked["graphs"] == []
    assert any("message" in w for w in checked["warnings"])
