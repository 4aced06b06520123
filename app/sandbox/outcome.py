"""Judging a run from the parent's view: who stopped it, how it exited, what it used.

The child's record pipe carries two frames (app/sandbox/child.py): the sandbox's own, written
before any pasted code ran (this run's nonce and the layers applied), then the run record, which
the pasted code could have written or changed. The first is believed; the second is only the
program's account of itself (its output, graphs, and the errors Python raised in it) and is
checked against app/sandbox/record_schema.py. Limits are judged here from the exit status, the
signal, the wall clock the server holds and the CPU time the kernel counted; `ok`, `sandbox`,
`limits` and `elapsed_ms` are always the parent's.
"""
from __future__ import annotations

import json
import signal

from typing import Callable

from app.sandbox import record_schema, values_channel
from app.sandbox.limits import Limits
from app.sandbox.protocol import first_frame

MAX_LAYERS = 32
MAX_LAYER_CHARS = 200
KeepValues = Callable[[values_channel.RunValues], "str | None"]
# The files the supervisor collected: their index (app/sandbox/run_files.py), bytes and a deadline
# -> the record's `files` and `files_note` (app/services/run_files.py keeps them for the page).
KeepFiles = Callable[[dict, list, float], dict]


def error_record(kind: str, message: str, limits: Limits, elapsed_ms: float, type_: str | None = None,
                 stdout: str = "", wording: dict | None = None) -> dict:
    """A run the server ended or judged. `wording`: the message's catalog key and parameters
    (static/i18n: error_message.*), so the page says it in its language; `message` stays English."""
    error = {"kind": kind, "type": type_, "message": message, "line": None, "traceback": ""}
    if wording is not None:
        error["wording"] = wording
    return {"ok": False, "stdout": stdout, "stderr": "", "output_order": [], "graphs": [], "warnings": [],
            "sandbox": [], "limits": limits.as_dict(), "run_id": None,
            "elapsed_ms": elapsed_ms, "error": error}


def words(key: str, **params) -> dict:
    """An error message's wording: its key in static/i18n's error_message.* and its parameters."""
    return {"key": f"error_message.{key}", "params": params}


def judge_run(report: dict, pipe: bytes, nonce: str, killed_by_clock: bool, limits: Limits,
              elapsed_ms: float, code: str = "", keep_values: KeepValues | None = None,
              in_place: tuple = (b"", 0)) -> dict:
    """The run record the server answers, from the supervisor's report and the pipe's bytes
    (`in_place`: the values memfd the child wrote and the memory it holds, values_channel.parse's)."""
    header, rest = _sandbox_frame(memoryview(pipe), nonce)     # views, not copies, of the pipe's bytes
    if header is None or "failed" in header:          # no pasted code ran, or nothing is believed
        why = (f"the sandbox could not run the program: {header['failed']}" if header
               else "the sandbox did not confirm its layers before the program ran")
        wording = words("sandbox_refused", quote=header["failed"]) if header else words("sandbox_unconfirmed")
        record = _verdict(report, killed_by_clock, limits, elapsed_ms) or error_record(
            "internal_error", why, limits, elapsed_ms, wording=wording)
    else:
        record = judge(report, rest, killed_by_clock, limits, elapsed_ms, code=code, keep_values=keep_values,
                       in_place=in_place)
    record["sandbox"] = list(header.get("layers", [])) if header else []
    return record


def _sandbox_frame(pipe: bytes, nonce: str) -> tuple[dict | None, bytes]:
    """The child's first frame if it is this run's and well-formed, and the bytes after it."""
    try:
        payload, rest = first_frame(pipe)
        header = json.loads(bytes(payload))
    except ValueError:
        return None, b""
    if not (isinstance(header, dict) and nonce and header.get("nonce") == nonce):
        return None, b""
    layers, failed = header.get("layers"), header.get("failed")
    if isinstance(failed, str) and layers is None:
        return {"failed": failed[:2000]}, b""
    if not (isinstance(layers, list) and len(layers) <= MAX_LAYERS
            and all(isinstance(layer, str) and len(layer) <= MAX_LAYER_CHARS for layer in layers)):
        return None, b""
    return {"layers": layers}, rest


def judge(report: dict, record_frames: bytes, killed_by_clock: bool, limits: Limits, elapsed_ms: float,
          code: str = "", keep_values: KeepValues | None = None, in_place: tuple = (b"", 0)) -> dict:
    """The parent's verdict, or else the child's record (its frame, as written after the pasted
    code started) validated; `code` bounds the lines an error may point at. The tensor values
    after the record (when `limits.max_values_bytes` allows them) are checked and handed to
    `keep_values`, whose answer is the record's `run_id`."""
    verdict = _verdict(report, killed_by_clock, limits, elapsed_ms)
    if verdict is not None:
        return verdict
    if not record_frames:
        return error_record("runtime_error", f"the program ended before its results were collected "
                            f"(exit status {report.get('exit_code', 0)})", limits, elapsed_ms, "SystemExit",
                            wording=words("no_results", status=report.get("exit_code", 0)))
    try:
        payload, trailing = first_frame(record_frames)
        if len(payload) > limits.max_record_bytes:
            # the supervisor's bound on the pipe leaves room for the values after the record
            return _record_too_large(limits, elapsed_ms)
        if trailing and limits.max_values_bytes <= 0:
            raise record_schema.Malformed(f"{len(trailing)} more bytes followed it on the record pipe")
        values = _values(trailing, limits, in_place)
        raw = record_schema.parse(bytes(payload))
    except record_schema.Malformed as exc:
        return _malformed(str(exc), limits, elapsed_ms)
    except ValueError as exc:
        return _malformed(f"its frame is incomplete ({exc})", limits, elapsed_ms)
    record = record_schema.validate(raw, len(code.splitlines()), limits.max_stdout_bytes)
    error = record["error"]
    if error is not None and error["kind"] == "memory_limit":
        error["message"] = f"the program used more than its {limits.memory_mb} MB of memory"
        error["wording"] = words("memory_used", mb=limits.memory_mb)
    record["ok"] = error is None
    record["run_id"] = keep_values(values) if values is not None and keep_values is not None else None
    record["limits"] = limits.as_dict()
    record["elapsed_ms"] = elapsed_ms
    return record


def _values(data: bytes, limits: Limits, in_place: tuple = (b"", 0)) -> values_channel.RunValues | None:
    """The run's tensor values after its record, checked, or None (none sent). Bytes after the
    record that are not a well-formed values channel were not written by the child's own writer
    (it writes exactly the two frames, within the limit): the program wrote into the pipe — e.g.
    a forged record of its own, the real one following it — so no record of the run is believed."""
    if not data:
        return None
    try:
        return values_channel.parse(data, limits.max_values_bytes, *in_place)
    except values_channel.Malformed as exc:
        raise record_schema.Malformed(f"{len(data)} more bytes followed it on the record pipe, and they are not "
                                      f"the run's values ({exc})") from None


def timeout_record(limits: Limits, elapsed_ms: float) -> dict:
    """A run its wall-clock limit ended (killed, or interrupted and kept: app/sandbox/runner.py)."""
    return error_record("timeout", f"stopped after {limits.timeout_s:g} s", limits, elapsed_ms, "TimeoutError",
                        wording=words("timeout", s=f"{limits.timeout_s:g}"))


def _record_too_large(limits: Limits, elapsed_ms: float) -> dict:
    return error_record("output_limit", f"the run record was larger than {limits.max_record_bytes} bytes",
                        limits, elapsed_ms, wording=words("record_too_large", bytes=limits.max_record_bytes))


def _verdict(report: dict, killed_by_clock: bool, limits: Limits, elapsed_ms: float) -> dict | None:
    """What the parent saw end the run (clock, signal, oversize), or None for a normal exit."""
    code = report.get("exit_code", 0)
    sig = -code if code < 0 else None
    cpu = float(report.get("cpu_s", 0.0))
    if killed_by_clock:
        return timeout_record(limits, elapsed_ms)
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu >= limits.cpu_s - 0.5):
        return error_record("timeout", f"stopped after {limits.cpu_s} s of CPU time", limits, elapsed_ms,
                            "TimeoutError", wording=words("cpu_timeout", s=limits.cpu_s))
    if report.get("oversize"):
        return _record_too_large(limits, elapsed_ms)
    if sig == signal.SIGSYS:
        return error_record("security_violation", "Blocked by the sandbox: the program made a system call "
                            "that runs may not make.", limits, elapsed_ms, "SecurityViolation",
                            wording=words("blocked_syscall"))
    near_memory_limit = report.get("maxrss_kb", 0) * 1024 > 0.5 * limits.memory_mb * 1024 * 1024
    if sig == signal.SIGKILL and near_memory_limit:
        return _memory(limits, elapsed_ms, "the system stopped the program, most likely for using too much memory",
                       words("memory_killed", mb=limits.memory_mb))
    if sig is not None:
        name = signal.Signals(sig).name if sig in signal.Signals._value2member_map_ else str(sig)
        if near_memory_limit:
            return _memory(limits, elapsed_ms, f"the program crashed ({name}) near its memory limit",
                           words("memory_crash", signal=name, mb=limits.memory_mb))
        return error_record("runtime_error", f"the program crashed ({name}); recursion too deep for the "
                            "stack or a failed allocation can do this", limits, elapsed_ms, "Crash",
                            wording=words("crash", signal=name))
    return None


def _malformed(why: str, limits: Limits, elapsed_ms: float) -> dict:
    record = error_record("internal_error", "", limits, elapsed_ms)
    record["error"] = record_schema.malformed_error(why)
    return record


def _memory(limits: Limits, elapsed_ms: float, why: str, wording: dict) -> dict:
    return error_record("memory_limit", f"{why} (limit {limits.memory_mb} MB)", limits, elapsed_ms, "MemoryError",
                        wording=wording)
