"""Judging a run from the parent's view: who stopped it, how it exited, what it used.

The child's record is believed only for what a program may legitimately report about itself
(its output, graphs, and the errors Python raised in it); limits are judged here from the
exit status, the signal, the wall clock the server holds and the CPU time the kernel counted.
"""
from __future__ import annotations

import json
import signal

from app.sandbox.limits import Limits

# Error kinds a child may report itself; anything else it claims is not believed.
CHILD_KINDS = {"syntax_error", "runtime_error", "unsupported", "security_violation", "output_limit",
               "memory_limit", "internal_error"}


def error_record(kind: str, message: str, limits: Limits, elapsed_ms: float, type_: str | None = None,
                 stdout: str = "") -> dict:
    return {"ok": False, "stdout": stdout, "stderr": "", "output_order": [], "graphs": [], "warnings": [],
            "limits": limits.as_dict(),
            "elapsed_ms": elapsed_ms,
            "error": {"kind": kind, "type": type_, "message": message, "line": None, "traceback": ""}}


def judge(report: dict, record_bytes: bytes, killed_by_clock: bool, limits: Limits, elapsed_ms: float) -> dict:
    code = report.get("exit_code", 0)
    sig = -code if code < 0 else None
    cpu = float(report.get("cpu_s", 0.0))
    if killed_by_clock:
        return error_record("timeout", f"stopped after {limits.timeout_s:g} s", limits, elapsed_ms, "TimeoutError")
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= limits.cpu_s - 0.5):
        return error_record("timeout", f"stopped after {limits.cpu_s} s of CPU time", limits, elapsed_ms,
                            "TimeoutError")
    if report.get("oversize"):
        return error_record("output_limit", f"the run record was larger than {limits.max_record_bytes} bytes",
                            limits, elapsed_ms)
    if sig == signal.SIGSYS:
        return error_record("security_violation", "Blocked by the sandbox: the program made a system call "
                            "that runs may not make.", limits, elapsed_ms, "SecurityViolation")
    near_memory_limit = report.get("maxrss_kb", 0) * 1024 > 0.5 * limits.memory_mb * 1024 * 1024
    if sig == signal.SIGKILL and near_memory_limit:
        return _memory(limits, elapsed_ms, "the system stopped the program, most likely for using too much memory")
    if sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if near_memory_limit:
            return _memory(limits, elapsed_ms, f"the program crashed ({name}) near its memory limit")
        return error_record("runtime_error", f"the program crashed ({name}); recursion too deep for the "
                            "stack or a failed allocation can do this", limits, elapsed_ms, "Crash")
    record = _parse(record_bytes)
    if record is None:
        return error_record("runtime_error", f"the program ended before its results were collected "
                            f"(exit status {code})", limits, elapsed_ms, "SystemExit")
    error = record.get("error")
    if error is not None and (not isinstance(error, dict) or error.get("kind") not in CHILD_KINDS):
        record["error"] = error = {"kind": "internal_error", "type": None, "line": None, "traceback": "",
                                   "message": "the run returned an error Dagscope cannot read"}
    if error is not None and error["kind"] == "memory_limit":
        error["message"] = f"the program used more than its {limits.memory_mb} MB of memory"
    record["ok"] = error is None
    record["limits"] = limits.as_dict()
    record["elapsed_ms"] = elapsed_ms
    return record


def _memory(limits: Limits, elapsed_ms: float, why: str) -> dict:
    return error_record("memory_limit", f"{why} (limit {limits.memory_mb} MB)", limits, elapsed_ms, "MemoryError")


def _parse(record_bytes: bytes) -> dict | None:
    if not record_bytes:
        return None
    try:
        record = json.loads(record_bytes)
    except ValueError:
        return None
    if not isinstance(record, dict):
        return None
    for key, default in (("stdout", ""), ("stderr", ""), ("output_order", []), ("graphs", []), ("warnings", [])):
        if not isinstance(record.get(key), type(default)):
            record[key] = default
    if not _valid_output_order(record["output_order"], record["stdout"], record["stderr"]):
        record["output_order"] = []      # the page then shows stdout, then stderr
    return record


def _valid_output_order(order: list, stdout: str, stderr: str) -> bool:
    """Entries are ["stdout" | "stderr", count] and no stream's counts add up past its text."""
    used = {"stdout": 0, "stderr": 0}
    for entry in order:
        if not (isinstance(entry, list) and len(entry) == 2 and entry[0] in used
                and type(entry[1]) is int and entry[1] > 0):
            return False
        used[entry[0]] += entry[1]
    return used["stdout"] <= len(stdout) and used["stderr"] <= len(stderr)
