"""Running Graphviz's `dot` on DOT text: bounded in time, memory, CPU and files, killed whole.

`dot` is trusted code fed untrusted input (a graph from a run). It starts in a session (and so a
process group) of its own, is niced below the server and the runs, and gets its resource limits
(`prlimit`, not a `preexec_fn`, which is unsafe in a threaded server) before it reads a byte of
its input: it blocks on stdin until then. On the deadline the whole group is killed."""
from __future__ import annotations

import math
import os
import resource
import shutil
import signal
import subprocess
from dataclasses import dataclass

NICE = 10                          # the server and the students' runs come first
OPEN_FILES = 64                    # its libraries, fonts and plugins, with room to spare
FILE_BYTES = 8 * 1024 * 1024       # dot writes to a pipe; no file of its own should grow
_ENV = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": "/nonexistent"}


class DotFailed(Exception):
    """dot did not give a drawing; `reason` is one of "missing", "timeout", "killed", "error"."""

    def __init__(self, reason: str, detail: str = ""):
        super().__init__(detail or reason)
        self.reason = reason
        self.detail = detail


@dataclass(frozen=True)
class DotLimits:
    timeout_s: float
    memory_mb: int = 1024

    @property
    def cpu_s(self) -> int:
        """CPU seconds before the kernel stops dot: a backstop behind the wall clock."""
        return int(math.ceil(self.timeout_s)) + 1


def _limit(pid: int, limits: DotLimits) -> None:
    memory = limits.memory_mb * 1024 * 1024
    for which, value in ((resource.RLIMIT_AS, memory), (resource.RLIMIT_DATA, memory),
                         (resource.RLIMIT_CPU, limits.cpu_s), (resource.RLIMIT_FSIZE, FILE_BYTES),
                         (resource.RLIMIT_NOFILE, OPEN_FILES), (resource.RLIMIT_CORE, 0)):
        resource.prlimit(pid, which, (value, value))
    os.setpriority(os.PRIO_PROCESS, pid, NICE)


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    proc.communicate()        # reap it and close the pipes


def run_dot(fmt: str, source: bytes, limits: DotLimits) -> bytes:
    """dot's output in `fmt` for `source`, or DotFailed."""
    dot = shutil.which("dot", path=_ENV["PATH"])
    if dot is None:
        raise DotFailed("missing", "Graphviz is not installed: `dot` was not found (apt-get install graphviz).")
    if limits.timeout_s <= 0:
        raise DotFailed("timeout")
    proc = subprocess.Popen([dot, f"-T{fmt}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True, close_fds=True,
                            env=_ENV, cwd="/")
    try:
        _limit(proc.pid, limits)
        out, err = proc.communicate(source, timeout=limits.timeout_s)
    except subprocess.TimeoutExpired:
        _kill_group(proc)
        raise DotFailed("timeout") from None
    except BaseException:
        _kill_group(proc)
        raise
    if proc.returncode < 0:       # a signal: SIGKILL/SIGSEGV from the memory limit, SIGXCPU
        raise DotFailed("killed", signal.strsignal(-proc.returncode) or f"signal {-proc.returncode}")
    if proc.returncode != 0:
        raise DotFailed("error", err.decode(errors="replace")[:500])
    return out
