"""The parent's judgement of a run: exit status, signal, clock and usage decide, not the record."""
import json
import signal

from app.sandbox.limits import Limits
from app.sandbox.outcome import judge
from app.sandbox.protocol import frame

LIMITS = Limits(timeout_s=10, memory_mb=1000)
OK_RECORD = frame(json.dumps({"ok": True, "stdout": "hi\n", "error": None, "graphs": []}).encode())


def report(exit_code=0, cpu_s=0.1, maxrss_kb=50_000, oversize=False):
    return {"exit_code": exit_code, "cpu_s": cpu_s, "maxrss_kb": maxrss_kb, "oversize": oversize}


def kind(rec):
    return rec["error"]["kind"] if rec["error"] else None


def test_a_clean_exit_keeps_the_record_and_adds_the_parents_facts():
    rec = judge(report(), OK_RECORD, False, LIMITS, 12.5)
    assert rec["ok"] and rec["stdout"] == "hi\n" and rec["elapsed_ms"] == 12.5 and rec["limits"]["memory_mb"] == 1000


def test_the_clock_wins_over_any_record():
    assert kind(judge(report(-signal.SIGKILL), OK_RECORD, True, LIMITS, 10_000)) == "timeout"


def test_cpu_limit_signals_are_timeouts():
    assert kind(judge(report(-signal.SIGXCPU), b"", False, LIMITS, 5)) == "timeout"
    assert kind(judge(report(-signal.SIGKILL, cpu_s=11.6), b"", False, LIMITS, 5)) == "timeout"


def test_kills_and_crashes_near_the_memory_limit_are_memory_limit():
    assert kind(judge(report(-signal.SIGKILL, maxrss_kb=900_000), b"", False, LIMITS, 5)) == "memory_limit"
    assert kind(judge(report(-signal.SIGSEGV, maxrss_kb=900_000), b"", False, LIMITS, 5)) == "memory_limit"


def test_other_crashes_are_runtime_errors_naming_the_signal():
    rec = judge(report(-signal.SIGSEGV), b"", False, LIMITS, 5)
    assert kind(rec) == "runtime_error" and "SIGSEGV" in rec["error"]["message"]
    assert kind(judge(report(-signal.SIGKILL), b"", False, LIMITS, 5)) == "runtime_error"


def test_a_blocked_syscall_signal_is_a_security_violation():
    assert kind(judge(report(-signal.SIGSYS), OK_RECORD, False, LIMITS, 5)) == "security_violation"


def test_an_oversized_record_is_output_limit():
    assert kind(judge(report(-signal.SIGKILL, oversize=True), b"", False, LIMITS, 5)) == "output_limit"


def test_no_record_or_garbage_is_never_success():
    assert kind(judge(report(0), b"", False, LIMITS, 5)) == "runtime_error"
    for garbage in (frame(b"{not json"), frame(b"[1, 2]"), b"{not json", b"\0\0\0\5ab"):
        rec = judge(report(0), garbage, False, LIMITS, 5)
        assert kind(rec) == "internal_error" and "malformed" in rec["error"]["message"] and not rec["ok"]


def test_a_child_cannot_claim_a_kind_only_the_parent_decides():
    claim = frame(json.dumps({"ok": False, "error": {"kind": "timeout", "message": "fake"}}).encode())
    assert kind(judge(report(), claim, False, LIMITS, 5)) == "internal_error"
    success_with_error = frame(json.dumps({"ok": True, "error": {"kind": "runtime_error", "message": "x"}}).encode())
    assert judge(report(), success_with_error, False, LIMITS, 5)["ok"] is False


def test_the_sandbox_frame_names_the_layers_and_must_carry_this_runs_nonce():
    from app.sandbox.outcome import judge_run
    header = frame(json.dumps({"nonce": "n1", "layers": ["rlimits", "seccomp filter"]}).encode())
    forged = frame(json.dumps({"ok": True, "stdout": "x", "sandbox": ["none"], "limits": {}, "error": None}).encode())
    rec = judge_run(report(), header + forged, "n1", False, LIMITS, 5)
    assert rec["ok"] and rec["sandbox"] == ["rlimits", "seccomp filter"] and rec["limits"] == LIMITS.as_dict()
    for pipe, nonce in ((header + forged, "n2"), (forged, "n1"), (b"", "n1"), (header + forged, "")):
        rec = judge_run(report(), pipe, nonce, False, LIMITS, 5)
        assert kind(rec) == "internal_error" and rec["sandbox"] == [] and "did not confirm" in rec["error"]["message"]
    failed = frame(json.dumps({"nonce": "n1", "failed": "OSError: no Landlock"}).encode())
    rec = judge_run(report(), failed, "n1", False, LIMITS, 5)
    assert kind(rec) == "internal_error" and "no Landlock" in rec["error"]["message"]
    assert kind(judge_run(report(), header, "n1", True, LIMITS, 5)) == "timeout"
