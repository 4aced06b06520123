"""Run a trusted program (the C compiler, Graphviz `dot`) confined, on input a run may have shaped.

    with confine.workdir("dagscope-cc-") as tmp:
        result = confine.run([cc, "-c", "k.c"], cwd=tmp, read=[...], write=[tmp],
                             timeout_s=5, budget=confine.Budget(memory_mb=1024))
        result.returncode, result.stdout, result.stderr, result.timed_out, result.layers

The program is trusted; its input is not (a graph's labels, a kernel rendered from a run's
description). What confinement adds is that a bug in the program, or an input that drives it
somewhere unexpected, can neither read nor write outside the paths given, reach the network,
outlive its deadline, or use more than its budget. In the forked child, before exec:

- its own session and process group; with the privilege for it (root, or an unprivileged user
  namespace) also its own PID namespace, whose first process is the program itself: when it
  ends, or the group is killed at the deadline, the kernel kills everything it started (a `cc1`
  blocked forever no longer survives its driver);
- its own network namespace (no interfaces) where one can be made;
- rlimits: address space, CPU seconds, file size, processes, open files, no core dumps;
- Landlock: read (and execute) only `read`, write only `write`; ABI 4+ also denies TCP
  bind/connect, ABI 6+ signals and abstract sockets outside the program's own domain; and
  no_new_privs;
- as root, the unprivileged uid/gid `UNPRIVILEGED_ID` (nobody), no supplementary groups, no
  capabilities;
- stdin from a memfd holding `stdin`; stdout/stderr into memfds (bounded by the file-size limit),
  so no pipe can fill up and block it.

Every layer is best effort: `result.layers` names each one applied, or why it was not (a
container may forbid namespaces or Landlock), for the run record's `sandbox` list.
The parent waits on a pidfd (no polling delay), kills the whole group at the deadline, and
kills whatever is left of it when the program ends, so nothing outlives `run`.
"""
from __future__ import annotations

import contextlib
import ctypes
import os
import resource
import select
import shutil
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass, field

from app.sandbox import kernel

UNPRIVILEGED_ID = 65534          # nobody/nogroup on Debian
CLONE_NEWPID = 0x20000000
_libc = ctypes.CDLL(None, use_errno=True)
# What the dynamic loader reads to start any program (add the program's own files and input).
SHARED_LIBRARIES = ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib", "/etc/ld.so.cache"]


@dataclass(frozen=True)
class Budget:
    """Resource limits of one confined program (each an rlimit)."""
    cpu_s: int = 30               # RLIMIT_CPU: CPU seconds (the wall clock is `timeout_s`)
    memory_mb: int = 1024         # RLIMIT_AS
    file_mb: int = 64             # RLIMIT_FSIZE: every file written, stdout and stderr included
    processes: int = 64           # RLIMIT_NPROC: counts every process of the (dropped) uid
    open_files: int = 256         # RLIMIT_NOFILE


@dataclass
class Result:
    returncode: int | None        # None when killed at the deadline; 128 + N for signal N
    stdout: bytes
    stderr: bytes
    timed_out: bool
    elapsed_s: float
    layers: list[str] = field(default_factory=list)


@contextlib.contextmanager
def workdir(prefix: str, parent: str | None = None):
    """A temporary folder the confined program may write (owned by its uid when root drops to
    one), removed with everything in it on the way out. Give it as `cwd` and name files in it
    by relative paths: its parent folders (TMPDIR) may not be searchable by that uid."""
    path = tempfile.mkdtemp(prefix=prefix, dir=parent)
    try:
        if os.geteuid() == 0:
            os.chown(path, UNPRIVILEGED_ID, UNPRIVILEGED_ID)
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def run(argv: list[str], *, read: list[str] = (), write: list[str] = (), timeout_s: float,
        budget: Budget = Budget(), cwd: str | None = None, env: dict | None = None,
        stdin: bytes = b"", max_output: int = 1 << 20, new_network: bool = True) -> Result:
    """Run `argv` confined; never leaves a process behind. `read`/`write` are the only paths it
    may read (and execute) or write: list the program's own files, SHARED_LIBRARIES and its
    input. stdout/stderr beyond `max_output` bytes are cut. `new_network=False` skips making a
    network namespace (~10 ms) when the caller already sits in one without network."""
    return start(argv, read=read, write=write, budget=budget, cwd=cwd, env=env,
                 new_network=new_network).finish(stdin, timeout_s, max_output)


def start(argv: list[str], *, read: list[str] = (), write: list[str] = (), budget: Budget = Budget(),
          cwd: str | None = None, env: dict | None = None, new_network: bool = True) -> "Started":
    """`argv` started confined as `run` does, waiting for its stdin: `finish(stdin, ...)` gives it
    its input and the deadline. What confinement costs (forks, namespaces, Landlock, exec, the
    program loading its libraries) is paid here, before the input is known; `close()` ends a
    started program that is not wanted after all."""
    started = time.monotonic()
    report_r, report_w = os.pipe()               # the child names the layers it applied
    stdin_r, stdin_w = os.pipe2(os.O_CLOEXEC)
    fds = [os.memfd_create(name, os.MFD_CLOEXEC) for name in ("stdout", "stderr")]
    plan = _Plan(list(read), list(write), budget, report_w, new_network)
    try:
        proc = subprocess.Popen(argv, stdin=stdin_r, stdout=fds[0], stderr=fds[1], cwd=cwd,
                                env=env if env is not None else {"PATH": "/usr/bin:/bin", "LANG": "C"},
                                start_new_session=True, preexec_fn=plan.apply, close_fds=True)
    except BaseException:
        for fd in (*fds, report_r, report_w, stdin_r, stdin_w):
            os.close(fd)
        raise
    for fd in (report_w, stdin_r):
        os.close(fd)
    return Started(proc, stdin_w, report_r, fds, started)


class Started:
    """A confined program started by `start`, waiting for its input."""

    def __init__(self, proc: subprocess.Popen, stdin_w: int, report_r: int, out_fds: list[int], started: float):
        self.proc, self._stdin, self._report, self._out = proc, stdin_w, report_r, out_fds
        self.started = started
        self._done = False

    def alive(self) -> bool:
        return not self._done and self.proc.poll() is None

    def finish(self, stdin: bytes, timeout_s: float, max_output: int = 1 << 20) -> Result:
        """Give the program `stdin` (then end of file) and wait at most `timeout_s` from now
        for it to end; kills its whole group either way, as `run` does."""
        if self._done:
            raise RuntimeError("this program has been finished already")
        self._done = True
        deadline = time.monotonic() + timeout_s
        timed_out = False
        try:
            pidfd = os.pidfd_open(self.proc.pid)
            try:
                timed_out = not _feed(self._stdin, stdin, deadline)
                os.close(self._stdin)                  # end of file: the program may start
                self._stdin = -1
                if not timed_out:
                    timed_out = not select.select([pidfd], [], [], max(deadline - time.monotonic(), 0))[0]
            finally:
                os.close(pidfd)
        finally:
            kernel.kill_group(self.proc.pid)          # at the deadline, or the leftovers of a clean exit
            self.proc.wait()
            if self._stdin >= 0:
                os.close(self._stdin)
                self._stdin = -1
        layers = os.read(self._report, 1 << 16).decode(errors="replace").split("\n")
        out, err = (_read_all(fd, max_output) for fd in self._out)
        self._close_fds()
        code = self.proc.returncode
        return Result(None if timed_out else (128 - code if code < 0 else code), out, err, timed_out,
                      time.monotonic() - self.started, [layer for layer in layers if layer])

    def close(self) -> None:
        """End it unused (nothing outlives this)."""
        if self._done:
            return
        self._done = True
        kernel.kill_group(self.proc.pid)
        self.proc.wait()
        self._close_fds()

    def _close_fds(self) -> None:
        for fd in (self._stdin, self._report, *self._out):
            if fd >= 0:
                os.close(fd)
        self._stdin = self._report = -1
        self._out = []


def _feed(fd: int, data: bytes, deadline: float) -> bool:
    """Write `data` to the program's stdin; False if the deadline passed first. A program that
    ended (or closed its stdin) early gets no more: its exit status tells why."""
    os.set_blocking(fd, False)
    view = memoryview(data)
    while view:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return False
        if not select.select([], [fd], [], remaining)[1]:
            return False
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
        except (BrokenPipeError, ConnectionResetError):
            return True                      # it stopped reading: its exit says why
    return True


def _read_all(fd: int, limit: int) -> bytes:
    os.lseek(fd, 0, os.SEEK_SET)
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 16, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


class _Plan:
    """What the forked child applies before exec (runs in the child only: no locks, no imports)."""

    def __init__(self, read: list[str], write: list[str], budget: Budget, report_fd: int, new_network: bool):
        self.read, self.write, self.budget, self.report_fd = read, write, budget, report_fd
        self.new_network = new_network
        self.root = os.geteuid() == 0

    def _say(self, text: str) -> None:
        os.write(self.report_fd, (text + "\n").encode())

    def apply(self) -> None:
        kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)    # the caller's death ends it
        self._say("process group")
        self._namespaces()
        b = self.budget
        for limit, value in ((resource.RLIMIT_AS, b.memory_mb << 20), (resource.RLIMIT_CPU, b.cpu_s),
                             (resource.RLIMIT_FSIZE, b.file_mb << 20), (resource.RLIMIT_NOFILE, b.open_files),
                             (resource.RLIMIT_NPROC, b.processes), (resource.RLIMIT_CORE, 0)):
            resource.setrlimit(limit, (value, value))
        self._say("rlimits")
        # Landlock first, while the paths are still reachable (TMPDIR's parents may be closed to
        # the uid dropped to); it sets no_new_privs, which setresuid below does not need to undo
        self._say(kernel.restrict_filesystem(self.read, self.write))
        kernel.prctl(kernel.PR_SET_NO_NEW_PRIVS, 1)
        if self.root:
            os.setgroups([])
            os.setresgid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID)
            os.setresuid(UNPRIVILEGED_ID, UNPRIVILEGED_ID, UNPRIVILEGED_ID)   # all capabilities go too
            kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)            # (a uid change clears it)
            self._say(f"uid {UNPRIVILEGED_ID}")

    def _namespaces(self) -> None:
        """A PID namespace (and a network one) whose init is the program: fork once more here;
        this process only waits for it and passes its status on."""
        flags = CLONE_NEWPID | (kernel.CLONE_NEWNET if self.new_network else 0)
        if not self.root:
            flags |= kernel.CLONE_NEWUSER
            uid, gid = os.getuid(), os.getgid()
        if _libc.unshare(flags) != 0:
            self._say(f"no PID namespace ({os.strerror(ctypes.get_errno())})")
            return
        if not self.root:
            # our own ids mapped, so files keep their owner; a process that changed uid is not
            # dumpable and may not write its own /proc files until it says it is
            kernel.prctl(4, 1)                                           # PR_SET_DUMPABLE
            try:
                for name, text in (("setgroups", "deny"), ("uid_map", f"{uid} {uid} 1"),
                                   ("gid_map", f"{gid} {gid} 1")):
                    with open(f"/proc/self/{name}", "w") as f:
                        f.write(text)
            except OSError as exc:       # unmapped, it still acts with its own ids on files
                self._say(f"user namespace without an id map ({exc.strerror})")
        pid = os.fork()
        if pid == 0:
            self._say("PID namespace")
            if self.new_network:
                self._say("network namespace")
            return
        # the waiting parent: holds no descriptor of the caller's (so the caller sees the exec
        # of the program, not our exit), and ends with the program's status
        os.closerange(0, 1 << 16)
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        os._exit(code if code >= 0 else 128 - code)
