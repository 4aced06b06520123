"""Running Graphviz's `dot` on DOT text, confined (app/sandbox/confine.py) and bounded.

`dot` is trusted code fed untrusted input (a graph from a run). It runs in its own process group
and PID namespace, killed whole at the deadline, as nobody when the server is root, with
rlimits (memory, CPU, file size, open files), no network, niced below the server and the runs,
and Landlock letting it read only itself, the system libraries (its plugins live there), the
fonts and their configuration: nothing of the host's files, so even an image or a file name
that got past the escaping could not be read. It writes nothing but its stdout."""
from __future__ import annotations

import atexit
import contextlib
import functools
import glob
import math
import os
import shutil
import signal
import stat
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass, field, replace

from app.config import get_settings
from app.sandbox import confine

NICE = 10                          # the server and the students' runs come first
MAX_OUTPUT_MB = 64                 # the SVG of the largest graph drawn is a few MB
_PATH = "/usr/bin:/bin"
_ENV = {"PATH": _PATH, "LANG": "C.UTF-8", "HOME": "/nonexistent"}
# What dot reads besides itself and SHARED_LIBRARIES (found with strace -e openat).
_FONTS = ["/etc/fonts", "/usr/share/fonts", "/usr/local/share/fonts", "/usr/share/fontconfig",
          "/var/cache/fontconfig"]


INSTALL_GRAPHVIZ = "apt-get install graphviz"     # (quoted as code in the page's words: render.py)


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


def _dot_command(fmt: str) -> tuple[list[str], list[str]] | None:
    """The argv that draws in `fmt` and the files it may read, or None when Graphviz is missing."""
    dot, nice = shutil.which("dot", path=_PATH), shutil.which("nice", path=_PATH)
    if not (dot and nice):
        return None
    return [nice, "-n", str(NICE), dot, f"-T{fmt}"], [nice, dot, *confine.SHARED_LIBRARIES, *_FONTS]


# what draws (tests put a program that never finishes here to check the deadline on any machine)
_command = _dot_command


# Graphviz's plugins for an SVG drawing: its own SVG writer and the dot layout. With every plugin
# installed, dot loads pango, cairo, fontconfig and their libraries on each start to measure label
# text: ~0.15-0.4 s of a drawing's wall time here against ~0.02 s for the layout of a folded graph.
# Without them dot sizes labels by its built-in Helvetica (Arial) metrics, which match the page's
# text (Chromium's Helvetica, Liberation Sans, to a tenth of a point) better than pango's sizes did
# (~12% wider). PNG keeps every plugin (cairo draws it).
_SVG_PLUGINS = ("libgvplugin_core.so", "libgvplugin_dot_layout.so")


_PLUGIN_PREFIX = "dagscope-graphviz-"


def _remove_orphans(parent: str) -> None:
    """Remove the plugin folders of server processes that have ended: atexit does not run when
    uvicorn ends on a signal, so each folder is named by its process's pid. Only folders (not
    links) of this uid; a live process's folder is kept."""
    for path in glob.glob(os.path.join(parent, _PLUGIN_PREFIX + "*-*")):
        pid = os.path.basename(path)[len(_PLUGIN_PREFIX):].split("-", 1)[0]
        try:
            st = os.lstat(path)
            if not pid.isdigit() or not stat.S_ISDIR(st.st_mode) or st.st_uid != os.getuid():
                continue
            os.kill(int(pid), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:
            continue


@functools.lru_cache(maxsize=1)
def _svg_plugin_dir() -> str | None:
    """A folder holding only _SVG_PLUGINS (links to the installed ones) and the configuration
    `dot -c` writes for them, for GVBINDIR; None where it cannot be made (dot then loads all)."""
    dot = shutil.which("dot", path=_PATH)
    installed = sorted(glob.glob("/usr/lib*/graphviz") + glob.glob("/usr/lib*/*/graphviz")
                       + glob.glob("/usr/local/lib*/graphviz"))
    if not dot:
        return None
    for libdir in installed:
        found = [glob.glob(os.path.join(libdir, name + ".[0-9]*")) for name in _SVG_PLUGINS]
        if not all(found):
            continue
        # in /tmp: dot may run as nobody, who may not search the server's own TMPDIR
        parent = "/tmp" if os.path.isdir("/tmp") else tempfile.gettempdir()
        _remove_orphans(parent)
        folder = tempfile.mkdtemp(prefix=f"{_PLUGIN_PREFIX}{os.getpid()}-", dir=parent)
        atexit.register(shutil.rmtree, folder, True)
        try:
            os.chmod(folder, 0o755)
            for paths in found:
                for path in paths:               # libgvplugin_core.so.6 and .so.6.0.0: dot -c reads the first
                    os.symlink(path, os.path.join(folder, os.path.basename(path)))
            subprocess.run([dot, "-c"], env={**_ENV, "GVBINDIR": folder}, timeout=10, check=True, capture_output=True)
            # drawn as every drawing will be (confined, maybe as nobody): else dot keeps every plugin
            out, _ = _run("svg", b"digraph { a -> b }", DotLimits(10), folder, _dot_command("svg"))
            if b"<svg" in out:
                return folder
        except (OSError, subprocess.SubprocessError, DotFailed):
            pass
        shutil.rmtree(folder, ignore_errors=True)
    return None


def run_dot(fmt: str, source: bytes, limits: DotLimits) -> tuple[bytes, list[str]]:
    """dot's output in `fmt` for `source` and the confinement layers applied, or DotFailed."""
    return _run(fmt, source, limits, _svg_plugin_dir() if fmt == "svg" else None)


def _run(fmt: str, source: bytes, limits: DotLimits, plugins: str | None, command=None) -> tuple[bytes, list[str]]:
    command = command or _command(fmt)
    if command is None:
        raise DotFailed("missing", f"Graphviz is not installed: `dot` was not found ({INSTALL_GRAPHVIZ}).")
    if limits.timeout_s <= 0:
        raise DotFailed("timeout")
    spec = _Spec(tuple(command[0]), tuple(command[1]), plugins, limits.memory_mb, limits.cpu_s)
    # an SVG drawing takes the dot started for it in advance, if one waits (and asks for the next)
    warm = fmt == "svg" and get_settings().render_warm_s > 0
    program = WARM.take(spec) if warm else None
    try:
        result = (program or spec.start()).finish(source, limits.timeout_s, MAX_OUTPUT_MB << 20)
    finally:
        if warm:
            WARM.again(spec)     # the next one is started after this layout, not beside it
    if result.timed_out:
        raise DotFailed("timeout")
    if result.returncode > 128:       # a signal: SIGKILL/SIGSEGV at the memory limit, SIGXCPU, SIGXFSZ
        number = result.returncode - 128
        raise DotFailed("killed", signal.strsignal(number) or f"signal {number}")
    if result.returncode != 0:
        raise DotFailed("error", result.stderr.decode(errors="replace")[:500])
    return result.stdout, result.layers


@dataclass(frozen=True)
class _Spec:
    """How one dot is started: what a started one must match to be used for a drawing (its CPU
    limit may be higher than a drawing's: that drawing's wall clock, shorter, still binds it)."""
    argv: tuple
    readable: tuple
    plugins: str | None
    memory_mb: int
    cpu_s: int = field(compare=False)

    def start(self) -> confine.Started:
        env, readable = _ENV, list(self.readable)
        if self.plugins:
            env, readable = {**_ENV, "GVBINDIR": self.plugins}, [*readable, self.plugins]
        # processes: RLIMIT_NPROC counts every process of the uid dot drops to; dot starts none
        # itself, the limit only must not refuse its exec while other programs run as nobody
        budget = confine.Budget(cpu_s=self.cpu_s, memory_mb=self.memory_mb, file_mb=MAX_OUTPUT_MB,
                                processes=4096, open_files=64)
        return confine.start(list(self.argv), read=readable, write=[], budget=budget, cwd="/", env=env)


class Warm:
    """One confined `dot` started in advance, waiting for its input: a drawing then pays for the
    layout only, not for the forks, namespaces, Landlock, exec and library loading (0.05-0.3 s on
    two busy cores) of a fresh one. A run asks for one (`prepare`: the page draws when the run
    ends); each drawing asks for the next when it is done; one not used for DAGSCOPE_RENDER_WARM
    seconds is ended and not replaced until asked again. Started and ended by one long-lived thread of its own: a
    program's parent-death signal follows the thread that forked it, and the server's request
    threads come and go."""

    def __init__(self):
        self._cond = threading.Condition()
        self._wanted: _Spec | tuple | None = None      # a _Spec, or prepare's (timeout, memory) to make one
        self._ready: tuple[_Spec, confine.Started, float] | None = None
        self._thread: threading.Thread | None = None
        self._cpu_s = 0                                # the highest CPU limit a drawing asked for
        self._local = threading.local()                # a thread's drawing in `held`: its next dot waits

    def prepare(self) -> None:
        """Have an SVG dot wait for the drawings (the server's render limits). Returns at once:
        the thread finds Graphviz and starts it (no-op without Graphviz, or with
        DAGSCOPE_RENDER_WARM 0)."""
        s = get_settings()
        if s.render_warm_s > 0:
            self._want((s.render_timeout_s, s.render_memory_mb))

    def take(self, spec: _Spec) -> confine.Started | None:
        """The started dot if it matches `spec` and is still alive. None is started meanwhile
        (on two cores a start beside the layout slows it): `again` asks for the next."""
        with self._cond:
            ready, self._ready = self._ready, None
            self._wanted = None
            self._cpu_s = max(self._cpu_s, spec.cpu_s)
        found = None
        if ready is not None:
            if ready[0] == spec and ready[0].cpu_s >= spec.cpu_s and ready[1].alive():
                found = ready[1]
            else:
                ready[1].close()
        return found

    def again(self, spec: _Spec) -> None:
        """A drawing like `spec` is done: have the next dot wait for the next one (at the end of
        `held` when the drawing is made inside it)."""
        with self._cond:
            next_spec = replace(spec, cpu_s=max(self._cpu_s, spec.cpu_s))
        held = getattr(self._local, "held", None)
        if held is not None:
            held.append(next_spec)
            return
        self._want(next_spec)

    @contextlib.contextmanager
    def held(self):
        """The next dot of the drawings made inside (in this thread) is started when the block
        ends, not when their layout is: checking the SVG comes after the layout and the page waits
        for it too, and on two busy cores a start beside it (forks of the server, namespaces, exec)
        slowed it (the ResNet's nine rows: svg_clean 86-100 -> 110-191 ms at load 12)."""
        self._local.held = held = []
        try:
            yield
        finally:
            self._local.held = None
            if held:
                self._want(held[-1])

    def _want(self, wanted) -> None:
        with self._cond:
            self._wanted = wanted
            if self._thread is None:
                self._thread = threading.Thread(target=self._loop, name="dagscope-dot-warm", daemon=True)
                self._thread.start()
            self._cond.notify_all()

    def _loop(self) -> None:
        while True:
            old = spec = None
            with self._cond:
                while True:
                    if isinstance(self._wanted, tuple):
                        break
                    idle_s = get_settings().render_warm_s
                    if self._ready is not None and (self._ready[0] != self._wanted
                                                    or time.monotonic() - self._ready[2] > idle_s):
                        old, self._ready = self._ready, None
                        if old[0] == self._wanted:
                            self._wanted = None            # not used for a while: none until asked again
                        break
                    if self._ready is None and self._wanted is not None:
                        break
                    self._cond.wait(None if self._ready is None else
                                    max(0.0, idle_s - (time.monotonic() - self._ready[2])) + 0.01)
                wanted = self._wanted
            if old is not None:
                old[1].close()
            if isinstance(wanted, tuple):
                spec = _svg_spec(*wanted)                  # finds Graphviz: not on the caller's thread
                with self._cond:
                    if self._wanted == wanted:
                        self._wanted = spec
                continue
            if wanted is None or (self._ready is not None):
                continue
            try:
                started = wanted.start()
            except Exception:  # noqa: BLE001 - this thread must live on
                with self._cond:
                    self._wanted = None     # cannot start here: drawings start their own (and say why)
                continue
            with self._cond:
                if self._ready is None and self._wanted == wanted:
                    self._ready, started = (wanted, started, time.monotonic()), None
            if started is not None:
                started.close()

    def stop(self) -> None:
        """End the waiting dot (the server is stopping)."""
        with self._cond:
            ready, self._ready, self._wanted = self._ready, None, None
        if ready is not None:
            ready[1].close()


def _svg_spec(timeout_s: float, memory_mb: int) -> _Spec | None:
    command = _command("svg")
    if command is None:
        return None
    return _Spec(tuple(command[0]), tuple(command[1]), _svg_plugin_dir(), memory_mb, DotLimits(timeout_s).cpu_s)


WARM = Warm()
atexit.register(WARM.stop)
