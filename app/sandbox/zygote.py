"""The warm pool: a zygote process that has imported numpy and the engine once, and forks per run.

Process tree, one per run:
    server --(socketpair, fd sent over the control socket)--> zygote
      zygote --fork--> supervisor (trusted: no user code ever runs in it)
        supervisor --fork--> child (PID 1 of a new PID namespace; locks itself down, runs the
                                    pasted code once under a uid of its own, exits)
The supervisor reads the child's record, compiles kernels for it on request, reaps it with
wait4 (exit status, signal, CPU time, peak memory: the parent's view of the outcome), kills what
is left of its process group, removes the scratch folder and reports to the server. The server
holds the wall clock and kills the child's process group when it runs out.
"""
from __future__ import annotations

import fcntl
import gc
import importlib
import os
import selectors
import shutil
import signal
import socket
import sys
import tempfile
import time

from app.logs import GIVEN_ID      # the ids app/logs.py takes (the server's request id)
from app.sandbox import child, kernel, run_files, seccomp
from app.sandbox.compile_broker import ProtocolError, probe_confinement, serve_request
from app.sandbox.limits import Limits
from app.sandbox.protocol import (ChannelClosed, SharedBuffer, recv_json, seal_written, send_frame, send_json, send_sealed,
                                   values_memfd)

PREIMPORT = [
    "numpy", "numpy.testing", "engine", "engine.runner", "engine.record", "engine.compat", "engine.compat.torch",
    "engine.compat.torch.onnx", "engine.compat.tensorflow", "engine.compat.jax", "engine.nn", "engine.optim", "engine.functional", "engine.autodiff",
    "engine.function", "engine.capture", "engine.ir", "engine.passes", "engine.codegen",
    "engine.codegen.cc", "engine.codegen.loader", "engine.codegen.executor",
    "math", "random", "collections", "itertools", "functools", "dataclasses", "typing", "copy",
    "re", "json", "traceback", "linecache", "inspect", "ast", "textwrap", "statistics", "time",
    "logging", "pprint", "string", "timeit",
]
# Standard modules lessons import, loaded here from their cached bytecode once, so a run finds
# them in sys.modules. Any other pure-Python standard module a run imports is compiled from its
# source in the run (stdlib_import.py), which costs it a few milliseconds to 0.2 s each. asyncio
# must be here: its import rewrites code objects (types.coroutine), which the policy refuses to
# a run.
PRELOAD_STDLIB = [
    "argparse", "glob", "csv", "pickle", "enum", "abc", "heapq", "bisect", "operator", "decimal",
    "fractions", "datetime", "hashlib", "struct", "array", "io", "pathlib", "tempfile", "zipfile",
    "gzip", "bz2", "lzma", "tarfile", "base64", "urllib.parse", "unittest", "unittest.mock", "doctest",
    "asyncio", "contextlib", "numbers", "queue", "threading", "concurrent.futures", "shutil",
    "uuid", "calendar", "difflib", "shlex", "weakref", "warnings", "types", "zlib", "copyreg",
    "os", "sys", "platform", "locale", "gettext", "codecs", "unicodedata", "secrets", "hmac",
    "sqlite3", "xml.etree.ElementTree", "html", "cmath", "sched",
]
# A run's request: its code, options and limits, and the file an ONNX import hands it (base64 of at
# most app/routes/onnx_import.py's MAX_FILE_BYTES); from the trusted server, bounded all the same.
MAX_REQUEST_BYTES = 16 << 20


def preimport() -> list[str]:
    loaded = []
    for name in PREIMPORT + PRELOAD_STDLIB:
        try:
            importlib.import_module(name)
            loaded.append(name)
        except Exception:  # noqa: BLE001 - an optional part of the engine that is not there yet
            pass
    seccomp.load_library()
    try:  # the record's C statistics and strips are checked against numpy's once, here, not in each run (~20 ms)
        from engine.record.trajectory import _native_strip
        from engine.record.values import _native_stats, _native_summary
        _native_stats()
        _native_summary()
        _native_strip()
    except Exception:  # noqa: BLE001 - no engine/native: runs use numpy's statistics
        pass
    try:  # ask the compiler who it is and where its files are once, here, before any run
        from engine.codegen import cc
        cc.compiler_identity()
        probe_confinement()
    except Exception:  # noqa: BLE001 - no compiler: runs use the numpy backend
        pass
    # What was imported lives as long as the zygote: out of the cyclic GC's sight, a run's full
    # collections do not rescan these ~30,000 objects, nor write to (and so copy) their pages.
    gc.collect()
    gc.freeze()
    return loaded


# Each run's child gets uid and gid RUN_ID_BASE + its supervisor's pid: distinct for runs at the
# same time (pids of live processes are), above every uid a system hands out, below 2**31.
RUN_ID_BASE = 2_000_000_000


def main(control_fd: int, test_layers_off: frozenset[str] = frozenset()) -> None:
    child.TEST_LAYERS_OFF = test_layers_off
    network = kernel.isolate_network()
    os.environ["DAGSCOPE_NETNS"] = "1" if network.startswith("network namespace") else "0"
    preimport()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)   # supervisors are reaped by the kernel
    control = socket.socket(fileno=control_fd)
    scratch_base = tempfile.mkdtemp(prefix="dagscope-scratch-")
    os.chmod(scratch_base, 0o711)     # runs' uids may pass through to their own folder, not list it
    send_json(control, {"ready": True, "pid": os.getpid(), "network": network, "scratch_base": scratch_base})
    try:
        while True:
            try:
                message, fds, _, _ = socket.recv_fds(control, 16, 4)
            except OSError:
                break
            if not message:
                break                                # the server is gone: so are we
            for fd in fds:
                if os.fork() == 0:
                    control.close()
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    try:
                        supervise(fd, scratch_base)
                    finally:
                        os._exit(0)
                os.close(fd)
    finally:
        shutil.rmtree(scratch_base, ignore_errors=True)


def supervise(conn_fd: int, scratch_base: str) -> None:
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)
    conn = socket.socket(fileno=conn_fd)
    request = recv_json(conn, MAX_REQUEST_BYTES)
    limits = Limits(**request["limits"])
    # the server's request id (app/logs.py), kept here, out of the child's sight, and echoed in the
    # reports so the server's log line for this run's end is this supervisor's own account of it
    request_id = request.pop("request_id", None)
    request_id = request_id if isinstance(request_id, str) and GIVEN_ID.fullmatch(request_id) else None
    scratch = tempfile.mkdtemp(prefix="run-", dir=scratch_base)
    record_r, record_w = os.pipe()
    _widen(record_r)
    broker, broker_child = socket.socketpair()
    folder_in, folder_child = socket.socketpair()   # the child's working folder comes back on it
    # the run's large tensors' values: written by the child in place, passed on to the server
    values_fd = values_memfd(limits.max_values_bytes) if limits.max_values_bytes > 0 else None
    run_ids = (RUN_ID_BASE + os.getpid(),) * 2
    started = time.monotonic()
    pid_namespace, own_namespace = kernel.new_pid_namespace()   # the child below is its PID 1
    pid = os.fork()
    if pid == 0:
        conn.close()
        broker.close()
        os.close(record_r)
        folder_in.close()
        child.run(request, scratch, record_w, broker_child.fileno(), run_ids, pid_namespace,
                  folder_child.fileno(), values_fd)  # never returns
    kernel.leave_pid_namespace(own_namespace)
    try:
        os.setpgid(pid, pid)          # also done by the child: whichever runs first wins the race
    except OSError:
        pass
    os.close(record_w)
    broker_child.close()
    folder_child.close()
    # made after the fork: the child never holds it, so only this process ever writes it
    record = SharedBuffer(limits.max_pipe_bytes)
    oversize = False
    heard = {}                # when the record pipe's first and last bytes came (time.monotonic())
    try:
        send_json(conn, {"event": "started", "pid": pid, "supervisor": os.getpid(), "request_id": request_id})
        oversize = _collect(pid, record_r, record, broker, conn, limits, started,
                            request.get("cache_partition"), heard)
    except (OSError, ChannelClosed):
        record.size = 0                      # the server went away: clean up and leave
    # Wait for the child's exit without reaping it, so its pid still names its process group
    # while we kill anything left in that group; then reap it for the exit status and usage.
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    kernel.kill_group(pid)
    _, status, usage = os.wait4(pid, 0)
    reaped = time.monotonic()
    files = _files(folder_in, limits)
    shutil.rmtree(scratch, ignore_errors=True)
    report = {"event": "finished", "exit_code": os.waitstatus_to_exitcode(status),
              "cpu_s": round(usage.ru_utime + usage.ru_stime, 3), "maxrss_kb": usage.ru_maxrss,
              "wall_s": round(time.monotonic() - started, 3), "oversize": oversize, "request_id": request_id,
              "phases": _phases(started, heard, reaped)}
    try:
        send_json(conn, report)
        send_sealed(conn, record.seal())
        # sealed once the child and its group are gone (no writable mapping is left): else the
        # server gets an empty one, and a record that points at values there is malformed
        if values_fd is not None and seal_written(values_fd):
            send_sealed(conn, values_fd)
        else:
            empty = SharedBuffer(0)
            try:
                send_sealed(conn, empty.seal())
            finally:
                empty.close()
        send_json(conn, files.index())
        for _, data in files.files:
            send_frame(conn, data)
    except OSError:
        pass
    finally:
        record.close()
        if values_fd is not None:
            os.close(values_fd)


def _phases(started: float, heard: dict, reaped: float) -> dict:
    """Where the run's wall time went, as this process saw it (seconds; `begun`: when it forked the
    child, time.monotonic(), the server's clock too): the child's set-up until
    its sandbox frame came (fork, namespaces, lock-down), the program until the record's last byte
    (the pasted code, recording, writing the record), the child's exit until it was reaped (freeing
    its memory), and the files and clean-up since. The server's Server-Timing of the run says them."""
    first, last = heard.get("first", reaped), heard.get("last", reaped)
    return {"begun": started, "setup": round(first - started, 4), "program": round(last - first, 4), "exit": round(reaped - last, 4),
            "after": round(time.monotonic() - reaped, 4)}


def _files(folder_in: socket.socket, limits: Limits) -> run_files.Collected:
    """The files the run left in its working folder, through the descriptor its child sent
    before any pasted code ran (none if it sent none: lock_down failed first). The child and its
    process group are gone: nothing changes the folder while it is read."""
    found = run_files.Collected()
    try:
        _, fds, _, _ = socket.recv_fds(folder_in, 1, 1, socket.MSG_DONTWAIT)
    except OSError:
        fds = []
    finally:
        folder_in.close()
    for fd in fds[1:]:
        os.close(fd)
    if fds:
        try:
            if limits.max_files > 0:
                found = run_files.collect(fds[0], limits.max_files, limits.max_files_bytes, limits.file_mb << 20)
        finally:
            os.close(fds[0])
    return found


PIPE_BYTES = 1 << 20      # /proc/sys/fs/pipe-max-size's default: a megabyte per wake-up, not 64 kB


def _widen(fd: int) -> None:
    """A larger record pipe: a run's values (134 MB for nanoGPT) cross it in 1 MB turns instead
    of 64 kB ones, each a switch between the child and this process."""
    try:
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, PIPE_BYTES)
    except OSError:
        pass              # a lower pipe-max-size: the default size works, only slower


def _collect(pid: int, record_r: int, record: SharedBuffer, broker: socket.socket, conn: socket.socket,
             limits: Limits, started: float, cache_partition: str | None, heard: dict) -> bool:
    """Read the record into `record` while serving compile requests (each answered before the
    run's deadline); stop the child if the server leaves, the record grows past its limit, or a
    generous backstop behind the server's clock passes. True when it grew past its limit. `heard`
    gets the times its first and last bytes came ("first", "last")."""
    deadline = started + limits.timeout_s
    backstop = deadline + 5
    sel = selectors.DefaultSelector()
    sel.register(record_r, selectors.EVENT_READ, "record")
    sel.register(broker, selectors.EVENT_READ, "broker")
    sel.register(conn, selectors.EVENT_READ, "server")
    try:
        while True:
            remaining = backstop - time.monotonic()
            if remaining <= 0:
                kernel.kill_group(pid)
                return False
            for key, _ in sel.select(remaining):
                if key.data == "record":
                    n = record.readinto(record_r)
                    if n > 0:
                        heard["last"] = time.monotonic()
                        heard.setdefault("first", heard["last"])
                    if n < 0 and os.read(record_r, 1):      # full, and more came
                        kernel.kill_group(pid)       # what came first still holds the sandbox's own frame
                        return True
                    if n <= 0:                       # the end of the pipe (full or not)
                        return False
                elif key.data == "broker":
                    try:
                        serve_request(broker, deadline - time.monotonic(), limits.memory_mb, cache_partition)
                    except (OSError, ChannelClosed, ValueError, ProtocolError):
                        # the child broke the protocol (or left): no more compiling; its next
                        # request reads end-of-file and its engine runs the numpy backend
                        sel.unregister(broker)
                        try:
                            broker.shutdown(socket.SHUT_RDWR)
                        except OSError:
                            pass
                else:
                    if not conn.recv(1, socket.MSG_PEEK):
                        kernel.kill_group(pid)          # the server gave up on this run
                        raise ChannelClosed("server left")
                    sel.unregister(conn)
    finally:
        sel.close()
        os.close(record_r)


def _test_layers_off(argv: list[str]) -> frozenset[str]:
    """`--unsafe-test-layers-off=policy,seccomp`: only runner.Zygote(unsafe_test_layers_off=...)
    writes it, for the tests that show the kernel layers holding alone."""
    off: set[str] = set()
    for arg in argv:
        if arg.startswith("--unsafe-test-layers-off="):
            off.update(name for name in arg.partition("=")[2].split(",") if name)
    unknown = off - child.TEST_LAYER_NAMES
    if unknown:
        raise SystemExit(f"unknown layers: {sorted(unknown)}")
    return frozenset(off)


if __name__ == "__main__":
    main(int(sys.argv[1]), _test_layers_off(sys.argv[2:]))
