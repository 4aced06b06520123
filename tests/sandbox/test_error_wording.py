"""The server's and engine's own error messages and notes carry their wording for the page (issue 17,
item 7's remainder): an error's `wording` ({key, params}; app/sandbox/outcome.py error_record), a note's
entry in `warning_messages`. The English catalog words each exactly as the record's English, every
catalog has the key, and a program cannot word its error as another kind's (record_schema.CHILD_WORDINGS)."""
import json
import re
import signal
from pathlib import Path

import pytest

from app.sandbox import record_schema
from app.sandbox.limits import Limits
from app.sandbox.outcome import judge
from app.sandbox.protocol import frame
from app.sandbox.runner import stopped_record
from engine.runner import run_user_code

ROOT = Path(__file__).resolve().parents[2]
CATALOGS = {lang: json.loads((ROOT / f"static/i18n/{lang}.json").read_text()) for lang in ("en", "zh-CN")}
LIMITS = Limits(timeout_s=10, memory_mb=1000)


def report(exit_code=0, cpu_s=0.1, maxrss_kb=50_000, oversize=False):
    return {"exit_code": exit_code, "cpu_s": cpu_s, "maxrss_kb": maxrss_kb, "oversize": oversize}


def worded(key: str, params: dict, lang: str = "en") -> str:
    return CATALOGS[lang][key].format(**params)


def child(error: dict) -> bytes:
    return frame(json.dumps({"ok": False, "stdout": "", "error": error, "graphs": []}).encode())


VERDICTS = {
    "clock": judge(report(-signal.SIGKILL), b"", True, LIMITS, 10_000),
    "cpu": judge(report(-signal.SIGXCPU), b"", False, LIMITS, 5),
    "oversize": judge(report(oversize=True), b"", False, LIMITS, 5),
    "seccomp": judge(report(-signal.SIGSYS), b"", False, LIMITS, 5),
    "oom_kill": judge(report(-signal.SIGKILL, maxrss_kb=900_000), b"", False, LIMITS, 5),
    "crash_near_memory": judge(report(-signal.SIGSEGV, maxrss_kb=900_000), b"", False, LIMITS, 5),
    "crash": judge(report(-signal.SIGSEGV), b"", False, LIMITS, 5),
    "no_record": judge(report(3), b"", False, LIMITS, 5),
    "memory_error": judge(report(), child({"kind": "memory_limit", "type": "MemoryError", "message": ""}), False, LIMITS, 5),
    "malformed": judge(report(), child({"kind": "timeout", "message": "forged"}), False, LIMITS, 5),
    "stopped": stopped_record(LIMITS, 2300),
}


@pytest.mark.parametrize("name", sorted(VERDICTS))
def test_the_servers_error_messages_are_worded_as_the_english_says(name):
    error = VERDICTS[name]["error"]
    wording = error["wording"]
    assert re.fullmatch(r"error_message\.[a-z_]+", wording["key"])
    assert all(wording["key"] in catalog for catalog in CATALOGS.values())
    assert worded(wording["key"], wording["params"]) == error["message"]
    assert not re.search(r"[A-Za-z]{3,}", re.sub(r"\{\w+\}|\(\w+\)|sys\.exit|CPU|MB|stdout|stderr|SIGSEGV|TracerWarning",
                                                 "", CATALOGS["zh-CN"][wording["key"]]))


PROGRAMS = {
    "printed": ("for i in range(3000):\n    print('x' * 100)\n", "output_limit"),
    "exit": ("import sys\nsys.exit(3)\n", "runtime_error"),
}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_the_engines_error_messages_are_worded_and_pass_the_trusted_side(name):
    code, kind = PROGRAMS[name]
    record = run_user_code(code, {})
    error = record_schema.validate(json.loads(json.dumps(record)), 5, 200_000)["error"]
    assert error["kind"] == kind and worded(error["wording"]["key"], error["wording"]["params"]) == error["message"]


def test_a_program_cannot_word_its_error_as_another_kinds():
    forged = {"kind": "runtime_error", "type": "X", "message": "m",
              "wording": {"key": "error_message.blocked", "params": {"quote": "everything"}}}
    assert "wording" not in record_schema.validate({"error": forged}, 5, 1000)["error"]
    forged["wording"] = {"key": "error_message.timeout", "params": {"s": "10"}}      # the server's alone
    assert "wording" not in record_schema.validate({"error": {**forged, "kind": "output_limit"}}, 5, 1000)["error"]
    nested = {"key": "error_message.exit_status", "params": {"status": {"key": "warning.first_call", "params": {}}}}
    assert "wording" not in record_schema.validate({"error": {**forged, "wording": nested}}, 5, 1000)["error"]


def test_the_servers_notes_are_worded_beside_the_records_warnings():
    checked = record_schema.validate({"warnings": ["w"], "graphs": "nope", "summaries": 3}, 5, 1000)
    notes = checked["warnings"][1:]
    assert len(checked["warning_messages"]) == len(checked["warnings"]) and checked["warning_messages"][0] is None
    for text, message in zip(notes, checked["warning_messages"][1:]):
        assert worded(message["key"], message["params"]) == text and message["key"] in CATALOGS["zh-CN"]


def test_every_wording_key_is_in_both_catalogs():
    assert CATALOGS["en"].keys() == CATALOGS["zh-CN"].keys()
    for key in CATALOGS["en"]:
        if key.startswith("error_message."):
            assert set(re.findall(r"\{(\w+)\}", CATALOGS["en"][key])) == set(re.findall(r"\{(\w+)\}", CATALOGS["zh-CN"][key]))


def test_a_blocked_action_is_worded_with_what_was_blocked_quoted(sandbox_run):
    error = sandbox_run("print(open('/etc/passwd').read())")["error"]
    assert error["kind"] == "security_violation" and error["wording"]["key"] == "error_message.blocked"
    assert "/etc/passwd" in error["wording"]["params"]["quote"]
    assert worded(error["wording"]["key"], error["wording"]["params"]) == error["message"]
