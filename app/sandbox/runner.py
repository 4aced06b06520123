"""Parent side: start a child per run, enforce wall-clock and memory limits, judge the outcome."""
from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass

from app.config import ROOT


@dataclass(frozen=True)
class Limits:
    timeout_s: float = 10.0
    memory_mb: int = 1024
    max_stdout_bytes: int = 200_000


def _error_record(kind: str, message: str, limits: Limits, elapsed_ms: float, type_: str | None = None) -> dict:
    return {"ok": False, "stdout": "", "graphs": [], "limits": asdict(limits), "elapsed_ms": elapsed_ms,
            "error": {"kind": kind, "type": type_, "message": message, "line": None, "traceback": ""}}


def _child_preexec(limits: Limits) -> None:
    mem = limits.memory_mb * 1024 * 1024
    resource.setrlimit(resource.RLIMIT_AS, (mem, mem))
    cpu = int(limits.timeout_s) + 2
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1))


def run_code(code: str, options: dict, limits: Limits) -> dict:
    started = time.perf_counter()
    request = json.dumps({"code": code, "options": options, "limits": asdict(limits)}).encode()
    with tempfile.TemporaryDirectory(prefix="dagscope-run-") as scratch:
        proc = subprocess.Popen([sys.executable, "-m", "app.sandbox.child"], cwd=scratch,
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                start_new_session=True, preexec_fn=lambda: _child_preexec(limits),
                                env={**os.environ, "PYTHONPATH": str(ROOT), "OMP_NUM_THREADS": "1"})
        try:
            out, err = proc.communicate(request, timeout=limits.timeout_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            proc.communicate()
            return _error_record("timeout", f"stopped after {limits.timeout_s:g} s", limits,
                                 _ms(started), "TimeoutError")
    elapsed = _ms(started)
    if proc.returncode != 0:
        if proc.returncode in (-signal.SIGKILL, -signal.SIGXCPU):
            return _error_record("timeout", f"stopped after {limits.timeout_s:g} s of CPU time", limits, elapsed)
        if b"MemoryError" in err:
            return _error_record("memory_limit", f"the program used more than {limits.memory_mb} MB",
                                 limits, elapsed, "MemoryError")
        return _error_record("internal_error", f"the run ended unexpectedly (exit {proc.returncode})",
                             limits, elapsed)
    try:
        record = json.loads(out)
    except ValueError:
        return _error_record("internal_error", "the run produced no readable record", limits, elapsed)
    record["elapsed_ms"] = elapsed
    record["limits"] = asdict(limits)
    return record


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _ms(started: float) -> float:
    return round((time.perf_counter() - started) * 1000, 1)
