"""Running Graphviz's `dot` on DOT text, confined (app/sandbox/confine.py) and bounded.

`dot` is trusted code fed untrusted input (a graph from a run). It runs in its own process group
and PID namespace, killed whole at the deadline, as nobody when the server is root, with
rlimits (memory, CPU, file size, open files), no network, niced below the server and the runs,
and Landlock letting it read only itself, the system libraries (its plugins live there), the
fonts and their configuration: nothing of the host's files, so even an image or a file name
that got past the escaping could not be read. It writes nothing but its stdout."""
from __future__ import annotations

import math
import shutil
import signal
from dataclasses import dataclass

from app.sandbox import confine

NICE = 10                          # the server and the students' runs come first
MAX_OUTPUT_MB = 64                 # the SVG of the largest graph drawn is a few MB
_PATH = "/usr/bin:/bin"
_ENV = {"PATH": _PATH, "LANG": "C.UTF-8", "HOME": "/nonexistent"}
# What dot reads besides itself and SHARED_LIBRARIES (found with strace -e openat).
_FONTS = ["/etc/fonts", "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig",
          "/var/cache/fontconfig"]


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


def _command(fmt: str) -> tuple[list[str], list[str]] | None:
    """The argv that draws in `fmt` and the files it may read, or None when Graphviz is missing.
    (Tests put a program that never finishes here to check the deadline on any machine.)"""
    dot, nice = shutil.which("dot", path=_PATH), shutil.which("nice", path=_PATH)
    if not (dot and nice):
        return None
    return [nice, "-n", str(NICE), dot, f"-T{fmt}"], [nice, dot, *confine.SHARED_LIBRARIES, *_FONTS]


def run_dot(fmt: str, source: bytes, limits: DotLimits) -> tuple[bytes, list[str]]:
    """dot's output in `fmt` for `source` and the confinement layers applied, or DotFailed."""
    command = _command(fmt)
    if command is None:
        raise DotFailed("missing", "Graphviz is not installed: `dot` was not found (apt-get install graphviz).")
    if limits.timeout_s <= 0:
        raise DotFailed("timeout")
    argv, readable = command
    # processes: RLIMIT_NPROC counts every process of the uid dot drops to; dot starts none
    # itself, the limit only must not refuse its exec while other programs run as nobody
    budget = confine.Budget(cpu_s=limits.cpu_s, memory_mb=limits.memory_mb, file_mb=MAX_OUTPUT_MB,
                            processes=4096, open_files=64)
    result = confine.run(argv, read=readable,
                         write=[], timeout_s=limits.timeout_s, budget=budget, cwd="/", env=_ENV,
                         stdin=source, max_output=MAX_OUTPUT_MB << 20)
    if result.timed_out:
        raise DotFailed("timeout")
    if result.returncode > 128:       # a signal: SIGKILL/SIGSEGV at the memory limit, SIGXCPU, SIGXFSZ
        number = result.returncode - 128
        raise DotFailed("killed", signal.strsignal(number) or f"signal {number}")
    if result.returncode != 0:
        raise DotFailed("error", result.stderr.decode(errors="replace")[:500])
    return result.stdout, result.layers
