"""Server side of the sandbox: keep the zygote alive, hand it runs, hold the wall clock, judge."""
from __future__ import annotations

import atexit
import contextlib
import logging
import os
import secrets
import signal
import socket
import subprocess
import sys
import threading
import time
from typing import Callable

from app.config import ROOT
from app.sandbox import kernel
from app.sandbox.limits import Limits
from app.sandbox.outcome import KeepFiles, KeepValues, error_record, judge_run, timeout_record, words
from app.sandbox.protocol import ChannelClosed, recv_frame, recv_json, recv_sealed, recv_sealed_resident, send_json

log = logging.getLogger("dagscope.runs.sandbox")     # (under the run service's logger: its handlers hear it)

STARTUP_TIMEOUT_S = 60.0
REPORT_GRACE_S = 10.0
KEEP_FILES_GRACE_S = 0.5


class Zygote:
    """The one warm zygote of this server; restarted if it ever dies."""

    def __init__(self, unsafe_test_layers_off: frozenset[str] = frozenset()):
        # Tests only: layers the zygote leaves out of every run (see child.TEST_LAYERS_OFF). The
        # server's ZYGOTE below never sets it; no request can.
        self._argv_extra = [f"--unsafe-test-layers-off={','.join(sorted(unsafe_test_layers_off))}"] \
            if unsafe_test_layers_off else []
        self._lock = threading.Lock()
        self._proc: subprocess.Popen | None = None
        self._control: socket.socket | None = None
        self.network = "not started"
        self.scratch_base = ""

    def _start(self) -> None:
        self._forget_scratch_base()       # a zygote that died could not remove its own
        ours, theirs = socket.socketpair()
        env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1", "PYTHONDONTWRITEBYTECODE": "1"}
        self._proc = subprocess.Popen([sys.executable, "-m", "app.sandbox.zygote", str(theirs.fileno()),
                                       *self._argv_extra],
                                      pass_fds=[theirs.fileno()], cwd=ROOT, env=env, stdin=subprocess.DEVNULL,
                                      start_new_session=True)
        theirs.close()
        ours.settimeout(STARTUP_TIMEOUT_S)
        try:
            hello = recv_json(ours)
        except (OSError, ValueError, ChannelClosed):
            ours.close()                    # a zygote that cannot start is not kept half-alive
            self._proc.kill()
            self._proc.wait()
            self._proc = None
            raise
        ours.settimeout(None)
        self._control = ours
        self.network = hello.get("network", "")
        self.scratch_base = hello.get("scratch_base", "")

    @property
    def pid(self) -> int | None:
        return self._proc.pid if self._proc is not None else None

    @property
    def alive(self) -> bool:
        """The zygote is up (the readiness check's sandbox pool; a dead one restarts on the next run)."""
        proc = self._proc
        return proc is not None and proc.poll() is None

    def ensure_started(self) -> None:
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._start()

    def connect(self) -> socket.socket:
        """A fresh socket to a new supervisor for one run."""
        ours, theirs = socket.socketpair()
        try:
            with self._lock:
                for attempt in range(2):
                    if self._proc is None or self._proc.poll() is not None:
                        self._start()
                    try:
                        socket.send_fds(self._control, [b"r"], [theirs.fileno()])
                        break
                    except OSError:
                        self._stop_locked()
                        if attempt:
                            raise
        finally:
            theirs.close()
        return ours

    def stop(self) -> None:
        with self._lock:
            self._stop_locked()

    def _stop_locked(self) -> None:
        if self._control is not None:
            self._control.close()           # the zygote sees EOF and leaves
            self._control = None
        if self._proc is not None:
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
            self._proc = None
        self._forget_scratch_base()

    def _forget_scratch_base(self) -> None:
        """Remove the folder a zygote that is gone kept its runs' scratch folders in, once empty
        (a run still finishing under an orphaned supervisor removes its own, and keeps it)."""
        if self.scratch_base:
            with contextlib.suppress(OSError):
                os.rmdir(self.scratch_base)
            self.scratch_base = ""


ZYGOTE = Zygote()
atexit.register(ZYGOTE.stop)


# How long a stopped program has to end as Ctrl+C ends it (KeyboardInterrupt, then its record with
# what it printed) before its processes are killed (a program that catches KeyboardInterrupt, or
# sleeps in C, still ends within this)
STOP_GRACE_S = 1.5

# The same for the wall clock: at the run's time limit the program is interrupted as Ctrl+C would
# (its record keeps what it printed), and killed this much later if it has not ended by then — a
# program that catches KeyboardInterrupt ends by the limit plus this, never later
TIMEOUT_GRACE_S = 1.0


class RunControl:
    """The Stop of one run: `stop()`, from any thread, interrupts the run's program as Ctrl+C would
    (SIGINT: KeyboardInterrupt at its current line; app/sandbox/child.py), so its record still
    carries what it printed, and kills its sandboxed process group STOP_GRACE_S later if it has not
    ended by then; the run ends as `stopped` either way. A run stopped before it started never
    starts. Whose run it is, is the caller's business (app/services/runs.py)."""

    def __init__(self, grace_s: float = STOP_GRACE_S):
        self._lock = threading.Lock()
        self._pid: int | None = None
        self.stopped = False
        self.grace_s = grace_s

    def stop(self) -> None:
        with self._lock:
            if self.stopped:
                return
            self.stopped = True
            pid = self._pid
        if pid is not None:
            _interrupt(pid)
            timer = threading.Timer(self.grace_s, self._kill_if_running, (pid,))
            timer.daemon = True
            timer.start()

    def _kill_if_running(self, pid: int) -> None:
        with self._lock:
            still = self._pid == pid
        if still:
            kernel.kill_group(pid)

    def _running(self, pid: int | None) -> None:
        """The run's child is `pid` (None: it has ended and been reaped, its pid is no longer
        ours to signal); kills it at once when a stop came first (it has printed nothing yet)."""
        with self._lock:
            self._pid = pid
            stop_now = self.stopped and pid is not None
        if stop_now:
            kernel.kill_group(pid)


def run_code(code: str, options: dict, limits: Limits, *,
             slow_after_s: float | None = None, on_slow: Callable[[int], None] | None = None,
             zygote: Zygote | None = None, cache_partition: str | None = None,
             keep_values: KeepValues | None = None, control: RunControl | None = None,
             keep_files: KeepFiles | None = None, request_id: str | None = None, timing: dict | None = None) -> dict:
    """Run `code` in a fresh sandboxed child and return its run record (never raises).

    `on_slow(pid)` is called once if the run is still going after `slow_after_s` seconds (the
    scheduler uses it to move a long run to low priority). `zygote`: the server's ZYGOTE unless
    a test brings its own. `cache_partition` names whose kernel cache the run may hit
    (compile_broker.py: one per client, so a compile's time tells nothing about other clients'
    runs); None: nothing compiled before, nor kept for later. `keep_values(values)` keeps the run's
    tensor values (limits.max_values_bytes) and answers the record's `run_id`. `control`: its
    stop() ends the run early (the record's error is then `stopped`). `keep_files(index, blobs,
    deadline)` keeps the files the supervisor collected from the run's working folder, those it
    can by `deadline` (time.monotonic()), and answers the record's `files` and `files_note`;
    without it they are dropped. `timing` gets where the run's wall time went, in seconds (RUN_PHASES)."""
    timing = {} if timing is None else timing
    started = time.monotonic()
    pid = supervisor = None
    killed_by_clock = timed_out = False      # timed out: interrupted at the limit; killed: also after its grace
    control = control or RunControl()
    if control.stopped:
        return stopped_record(limits, _ms(started))
    try:
        sock = (zygote or ZYGOTE).connect()
    except (OSError, ValueError, ChannelClosed) as exc:
        return error_record("internal_error", f"the sandbox could not start: {exc}", limits, _ms(started),
                            wording=words("sandbox_start", quote=str(exc)[:900]))
    try:
        sock.settimeout(STARTUP_TIMEOUT_S)
        nonce = secrets.token_hex(16)       # names this run's sandbox frame on the record pipe
        send_json(sock, {"code": code, "options": options, "limits": limits.as_dict(), "nonce": nonce,
                         "cache_partition": cache_partition, "request_id": request_id})
        hello = recv_json(sock)
        pid, supervisor = int(hello["pid"]), int(hello["supervisor"])
        control._running(pid)
        deadline = time.monotonic() + limits.timeout_s
        if on_slow is not None and slow_after_s is not None and slow_after_s < limits.timeout_s:
            if not _readable(sock, slow_after_s):
                on_slow(pid)
        if not _readable(sock, deadline - time.monotonic()):
            timed_out = True
            _interrupt(pid)
            if not _readable(sock, TIMEOUT_GRACE_S):
                kernel.kill_group(pid)
                killed_by_clock = True
        # the supervisor has spoken: the child has ended (it reaps it first), so its pid may be
        # another process's soon; a Stop from now on has nothing to kill
        control._running(None)
        sock.settimeout(REPORT_GRACE_S)
        report = recv_json(sock)
        _log_report(report, request_id)
        _note_phases(report, started, timing)
        record_bytes = recv_sealed(sock, limits.max_pipe_bytes)     # mapped, not copied
        values_bytes, values_resident = recv_sealed_resident(sock, limits.max_values_bytes)   # written in place
        files_index, blobs = _recv_files(sock, limits)
    except (OSError, ValueError, KeyError, ChannelClosed) as exc:
        for target in (pid, supervisor):
            if target:
                kernel.kill_group(target)
        return error_record("internal_error", f"the sandbox failed: {exc}", limits, _ms(started),
                            wording=words("sandbox_failed", quote=str(exc)[:900]))
    finally:
        control._running(None)
        sock.close()
    if control.stopped and not killed_by_clock and report.get("exit_code") == -signal.SIGKILL:
        record = stopped_record(limits, _ms(started))     # killed after the grace: nothing it wrote is whole
    else:
        judged = time.monotonic()
        record = judge_run(report, record_bytes, nonce, killed_by_clock, limits, _ms(started), code, keep_values,
                           (values_bytes, values_resident))
        timing["check"] = time.monotonic() - judged
        if timed_out and not killed_by_clock and (record["error"] or {}).get("kind") != "security_violation":
            # it ended on the clock's KeyboardInterrupt: what it printed until then is kept, and the
            # run is a timeout as a killed one is, however it answered the interrupt (unless it then
            # did what the sandbox blocks: that is said as it is)
            record.update({"ok": False, "error": timeout_record(limits, record["elapsed_ms"])["error"]})
        elif control.stopped and not killed_by_clock:
            # it ended on the Stop's KeyboardInterrupt: what it printed and recorded until then is kept
            record.update({"ok": False, "error": stopped_record(limits, record["elapsed_ms"])["error"]})
    if keep_files is not None and (blobs or files_index.get("left_out")):
        # kept by the end of the run's time and a little more: the answer's bound holds however
        # long the store takes (what is not kept by then is named in files_note)
        kept = time.monotonic()
        record.update(keep_files(files_index, blobs, started + limits.timeout_s + KEEP_FILES_GRACE_S))
        timing["files"] = time.monotonic() - kept
    return record


# Where a run's wall time goes, in order (run_code's `timing`; the run's Server-Timing, app/routes/run.py):
# the zygote's fork of a supervisor until it forks the child; the supervisor's account (zygote._phases): the
# child's set-up, the program (with its recording and the record's writing), the child's exit, the
# files and clean-up after; the record's checks here (judge_run); keeping the run's files; and the
# child's CPU time (user + system), the part of all that the run itself computed.
RUN_PHASES = ("start", "setup", "program", "exit", "after", "check", "files", "cpu")


def _note_phases(report: dict, started: float, timing: dict) -> None:
    phases = report.get("phases")
    phases = dict(phases) if isinstance(phases, dict) else {}
    if isinstance(phases.get("begun"), (int, float)):
        phases["start"] = phases["begun"] - started      # one clock (CLOCK_MONOTONIC) for both processes
    for name, seconds in [*phases.items(), ("cpu", report.get("cpu_s"))]:
        if name in RUN_PHASES and isinstance(seconds, (int, float)) and 0 <= seconds < 1e6:
            timing[name] = float(seconds)


def _log_report(report: dict, request_id: str | None) -> None:
    """The supervisor's account of the run's end, logged under the request id it was given and
    echoes back (its own word that it served this request; a mismatch is said)."""
    echoed = report.get("request_id")
    if request_id is not None and echoed != request_id:
        log.warning("the supervisor answered for request %r, not this one", echoed)
    log.info("sandbox finished: exit %s, %.3f s CPU, %d KB peak", report.get("exit_code"), report.get("cpu_s") or 0,
             report.get("maxrss_kb") or 0, extra={"request_id": echoed or request_id or "-",
                                                  "exit_code": report.get("exit_code"), "cpu_s": report.get("cpu_s")})


def _recv_files(sock: socket.socket, limits: Limits) -> tuple[dict, list[bytes]]:
    """The index of the run's files and their bytes, from the supervisor (trusted: it read them
    itself), still held to the limits."""
    index = recv_json(sock)
    files = index.get("files") if isinstance(index, dict) else None
    if not isinstance(files, list) or len(files) > limits.max_files:
        raise ValueError("the supervisor's file index is malformed")
    blobs, total = [], 0
    for _ in files:
        blobs.append(recv_frame(sock, max(0, limits.max_files_bytes - total)))
        total += len(blobs[-1])
    return index, blobs


def stopped_record(limits: Limits, elapsed_ms: float) -> dict:
    """The record of a run its owner stopped (the page words it from `kind`; the message is English)."""
    return error_record("stopped", f"stopped by its owner after {elapsed_ms / 1000:.1f} s", limits, elapsed_ms,
                        wording=words("stopped", s=f"{elapsed_ms / 1000:.1f}"))


def _interrupt(pid: int) -> None:
    """Ctrl+C for the run's program (app/sandbox/child.py turns it into a KeyboardInterrupt)."""
    try:
        os.kill(pid, signal.SIGINT)
    except OSError:
        pass


def _readable(sock: socket.socket, seconds: float) -> bool:
    """Wait until the supervisor has something to say (or hung up); False on time-out."""
    sock.settimeout(max(seconds, 0.0))
    try:
        sock.recv(1, socket.MSG_PEEK)
        return True
    except (socket.timeout, BlockingIOError):
        return False


def _ms(started: float) -> float:
    return round((time.monotonic() - started) * 1000, 1)
