"""The run's child: freshly forked from the warm zygote, it locks itself down, runs the pasted
code once with the engine, writes the run record to its pipe and exits. Never reused."""
from __future__ import annotations

import base64
import json
import mmap
import os
import re
import signal
import socket
import sys
import tempfile

try:    # the record's JSON in a tenth of json's time (the LSTM LM's 3 MB: 0.2 -> 0.02 s); json without it
    import orjson
except ImportError:  # pragma: no cover - a pyproject dependency
    orjson = None

import numpy as np

from app.sandbox import kernel, policy, seccomp, stdlib_import
from app.sandbox.compile_broker import install_client
from app.sandbox.limits import Limits
from app.sandbox.protocol import frame, frame_header
from engine.record.values import ValueStore

# Folders whose files a run may read (never write): the Python installation, Dagscope's code,
# the system's shared libraries. Everything else outside the scratch folder is refused.
SYSTEM_LIBRARY_DIRS = ["/usr/lib", "/usr/lib64", "/usr/local/lib", "/lib", "/lib64", "/usr/share/zoneinfo"]

# Layers a test may switch off to show that the others hold alone ("policy", "landlock",
# "seccomp"). Set only by the zygote from its command line, which only a trusted caller
# (runner.Zygote(unsafe_test_layers_off=...)) writes; nothing in a run's request reaches it.
TEST_LAYERS_OFF: frozenset[str] = frozenset()
TEST_LAYER_NAMES = frozenset({"policy", "landlock", "seccomp"})


def code_dirs() -> list[str]:
    import app
    import engine
    return [os.path.dirname(os.path.abspath(engine.__file__)), os.path.dirname(os.path.abspath(app.__file__))]


def read_roots() -> list[str]:
    return [sys.prefix, sys.base_prefix, sys.exec_prefix, *code_dirs(), *SYSTEM_LIBRARY_DIRS]


def lock_down(limits: Limits, scratch: str, keep_fds: list[int], run_ids: tuple[int, int] | None = None,
              pid_namespace: str = "shared PID namespace (not requested)", folder_to: int | None = None) -> list[str]:
    """Apply every layer, in the order that lets each one still be set up. Irreversible.

    `run_ids`: the uid and gid this run gets (root servers only); `pid_namespace`: what the
    supervisor managed when it forked this child ("PID namespace": this process is its PID 1);
    `folder_to`: a socket on which the scratch folder's descriptor goes to the supervisor, which
    collects the run's files through it (app/sandbox/run_files.py), and which is then closed."""
    os.setpgid(0, 0)
    kernel.prctl(kernel.PR_SET_PDEATHSIG, signal.SIGKILL)   # the supervisor's death ends the run
    _close_fds_except(keep_fds)
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):          # the program's prints go to the bounded stdout/stderr, not to descriptors
        os.dup2(null, fd)
    os.close(null)
    owner = run_ids if run_ids is not None and os.geteuid() == 0 else None
    scratch_layer = kernel.scratch_on_tmpfs(scratch, limits.scratch_mb, owner)
    private_mounts = scratch_layer.startswith("scratch tmpfs")
    layers = ["rlimits", "network namespace" if _in_private_netns() else "shared network namespace",
              scratch_layer, pid_namespace]
    if pid_namespace == "PID namespace":
        layers.append(kernel.fresh_proc() if private_mounts else "host /proc (no mount namespace)")
    layers.append(kernel.private_ipc())
    layers.append(kernel.private_shared_folders(read_roots() + [scratch]) if private_mounts
                  else "shared /tmp (no mount namespace)")
    os.chdir(scratch)             # relative paths land in the scratch folder
    if folder_to is not None:
        _send_folder(folder_to)
    os.environ.update(TMPDIR=scratch, HOME=scratch)
    tempfile.tempdir = scratch
    kernel.set_rlimits(cpu_s=limits.cpu_s, memory_mb=limits.memory_mb, file_mb=limits.file_mb,
                       open_files=limits.open_files, processes=limits.processes)
    layers.append(kernel.one_malloc_arena())
    if run_ids is None:
        layers.append("server's uid (no uid given)")
    else:
        # The scratch folder too must be reachable by its path (TMPDIR, HOME, the kernel cache).
        layers.append(kernel.become_run_user(*run_ids, read_roots() + [scratch], private_mounts, scratch))
    layers.append(kernel.drop_capabilities())
    if "landlock" in TEST_LAYERS_OFF:
        layers.append("TEST ONLY: no Landlock")
    else:
        # the scratch folder as ".", the cwd: with the run's uid, its path may pass folders closed
        # to that uid (a TMPDIR under /tmp/pytest-of-root), and a path Landlock cannot open gets no rule
        layers.append(kernel.restrict_filesystem(read_roots() + ["/dev/urandom"], [".", "/dev/null"]))
    if "seccomp" in TEST_LAYERS_OFF:
        layers.append("TEST ONLY: no seccomp")
    else:
        layers.append(seccomp.install_filter())
    return layers


def _send_folder(sock_fd: int) -> None:
    """The working folder (the tmpfs, where mounted) to the supervisor, before any pasted code
    runs: the open descriptor keeps the tmpfs readable after this mount namespace is gone."""
    folder = os.open(".", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    sock = socket.socket(fileno=sock_fd)
    try:
        socket.send_fds(sock, [b"d"], [folder])
    finally:
        sock.close()
        os.close(folder)


def _in_private_netns() -> bool:
    return os.environ.get("DAGSCOPE_NETNS") == "1"


def _close_fds_except(keep: list[int]) -> None:
    start = 3
    for fd in sorted(keep) + [65536]:
        if fd >= start:
            os.closerange(start, fd)
            start = fd + 1


def _on_stop(signum, frame) -> None:
    """The server's Stop (app/sandbox/runner.py RunControl): the program ends as Ctrl+C ends it in
    a terminal, with a KeyboardInterrupt at its current line, and its record — what it printed
    until then — is still written. Only while the program itself runs: a Stop during the sandbox's
    setup or while the record is made is ignored (the server kills the run after its grace)."""
    runner = sys.modules.get("engine.runner")
    if runner is not None and runner.user_code_running:
        raise KeyboardInterrupt


INPUT_NAME = re.compile(r"[A-Za-z0-9_-][A-Za-z0-9_.-]{0,99}")


def _write_inputs(inputs: dict) -> None:
    """Files the server hands a run (the page's ONNX import: app/routes/onnx_import.py), base64,
    written into the scratch folder (the working folder) before any pasted code runs."""
    for name, data in inputs.items():
        if not INPUT_NAME.fullmatch(name) or not isinstance(data, str):
            raise ValueError(f"an input file's name {name!r} is not a plain file name")
        with open(name, "wb") as f:
            f.write(base64.b64decode(data, validate=True))


def run(request: dict, scratch: str, record_fd: int, broker_fd: int, run_ids: tuple[int, int] | None,
        pid_namespace: str, folder_fd: int | None = None, values_fd: int | None = None) -> None:
    """The whole life of the child. Always ends with os._exit: no zygote cleanup runs here.

    Two frames go down the record pipe. The first, written before any pasted code runs, is the
    sandbox's own word: the nonce the server gave this run and the layers applied. The second is
    the run record, built in the same address space as the pasted code and so no more than the
    program's own speech: the parent reads the first frame as authentic (nothing written later can
    change bytes already in the pipe) and validates the second as hostile data."""
    nonce = str(request.pop("nonce", ""))
    signal.signal(signal.SIGINT, _on_stop)
    try:
        limits = Limits(**request["limits"])
        keep = [record_fd, broker_fd] + [fd for fd in (folder_fd, values_fd) if fd is not None]
        layers = lock_down(limits, scratch, keep, run_ids, pid_namespace, folder_fd)
        from engine.runner import run_user_code

        _write_inputs((request.get("options") or {}).pop("inputs", None) or {})
        guard = policy.Policy(scratch, read_roots(), code_dirs())
        layers.append(install_client(broker_fd))
        stdlib_import.install()       # standard modules the zygote did not load: from their source
        if "policy" in TEST_LAYERS_OFF:
            layers.append("TEST ONLY: no Python policy")
        else:
            policy.install(guard)
    except BaseException as exc:  # noqa: BLE001 - no pasted code ran: this frame is still authentic
        _write_frame(record_fd, json.dumps({"nonce": nonce, "failed": f"{type(exc).__name__}: {exc}"}).encode())
        os._exit(0)
    _write_frame(record_fd, json.dumps({"nonce": nonce, "layers": layers}).encode())
    del nonce
    values = None if limits.max_values_bytes <= 0 else (
        ValueStore(limits.max_values_bytes) if values_fd is None else InPlaceValues(values_fd, limits.max_values_bytes))
    try:
        record = run_user_code(request["code"], request.get("options") or {},
                               max_stdout_bytes=limits.max_stdout_bytes, values=values)
        _name_security_errors(record)
        payload = encode_record(record, limits.max_record_bytes)
    except BaseException as exc:  # noqa: BLE001 - the parent still needs a readable answer
        values = None
        payload = json.dumps({"ok": False, "stdout": "", "stderr": "", "output_order": [], "graphs": [], "error": {
            "kind": "internal_error", "type": type(exc).__name__, "line": None, "traceback": "",
            "message": f"the sandbox could not run the program: {exc}"}}).encode()
    _write_frame(record_fd, payload)
    if values is not None and values.index:
        write_values(record_fd, values, values_fd)
    os._exit(0)


class InPlaceValues(ValueStore):
    """The run's ValueStore when its supervisor gave it a values memfd: a kept tensor's bytes are
    written into the memfd (through a mapping of it at the next offset: WINDOW) when the recorder
    keeps it, instead of a copy in the run's memory (ValueStore's tobytes) copied again into the
    memfd at the run's end: nanoGPT's 127 MB of values were two copies (0.3-0.6 s of CPU in a
    probe) and 127 MB more for the run's exit to free; now one copy straight from the array (0.16
    s). Not os.pwrite: the run's RLIMIT_FSIZE (its file_mb) binds writes to a memfd too, and past it
    the kernel ends the run with SIGXFSZ. Keeps the same tensors in the same order with the same
    bytes (C order, the array's own byte order) as ValueStore."""

    # Tensors are copied through a window of the memfd mapped at least this long and moved on when
    # one passes its end: a mapping per tensor (mmap, then munmap's TLB flush) cost ~55 us each, an
    # LSTM LM's 1,868 kept tensors 0.1 s of its recorded run's ~0.5 s
    WINDOW = 8 << 20

    def __init__(self, fd: int, max_bytes: int):
        super().__init__(min(max_bytes, os.fstat(fd).st_size))
        self.fd = fd
        self._window = None            # (mmap, the memfd offset it starts at, where it ends)

    def add(self, array: np.ndarray, reserved: int = 0) -> str | None:
        name = self.admits(array, reserved)       # ValueStore.add's admission (room held for tensors to come)
        if name is None:
            return None
        end = self.size + array.nbytes
        if self._window is None or end > self._window[2]:
            self._close_window()
            base = self.size - self.size % mmap.ALLOCATIONGRANULARITY
            # the address space grows by the window (WINDOW, or this tensor), as tobytes' copy would;
            # where a window does not fit it, this tensor's own pages
            for length in dict.fromkeys((max(end, min(base + self.WINDOW, self.max_bytes)) - base, end - base)):
                try:
                    self._window = (mmap.mmap(self.fd, length, offset=base), base, base + length)
                    break
                except (OSError, ValueError):
                    continue
            else:
                return None           # no room to map it: not kept, as a tensor past the bound
        window, base, _ = self._window
        into = np.frombuffer(window, dtype=array.dtype, count=array.size, offset=self.size - base)
        np.copyto(into.reshape(array.shape), array)
        del into
        ref = f"v{len(self.index) + 1}"
        self.index.append({"id": ref, "dtype": name, "shape": list(array.shape), "nbytes": array.nbytes})
        self.size += array.nbytes
        return ref

    def _close_window(self) -> None:
        if self._window is not None:
            self._window[0].close()
            self._window = None


def write_values(fd: int, values, values_fd: int | None = None) -> None:
    """The side channel after the record (docs/run-record.md, "Tensor values"): a frame with the
    index as JSON, then every tensor's bytes in the index's order — already in the values memfd
    the supervisor gave this run (InPlaceValues), or written into it now (`values_fd`), or where
    that cannot be mapped, as one more frame on the pipe, without joining them into one copy."""
    _write_frame(fd, json.dumps(values.index).encode())
    if isinstance(values, InPlaceValues):
        values._close_window()
        return
    if values_fd is not None and _write_in_place(values_fd, values):
        return
    _write_all(fd, frame_header(values.size))
    for chunk in values.chunks:
        _write_all(fd, chunk)


VALUES_WINDOW = 16 << 20     # mapped at a time: the run's address space grows by this much, not by all


def _write_in_place(fd: int, values) -> bool:
    """The values' bytes at the start of memfd `fd`, through a sliding window; False when it
    cannot be done (too small, or no room left in the address space to map a window)."""
    if os.fstat(fd).st_size < values.size:
        return False
    window, base = None, 0
    offset = 0
    try:
        for chunk in values.chunks:
            view = memoryview(chunk).cast("B")
            while view:
                if window is None or not base <= offset < base + len(window):
                    if window is not None:
                        window.close()
                    base = offset - offset % mmap.ALLOCATIONGRANULARITY
                    window = mmap.mmap(fd, min(VALUES_WINDOW, values.size - base), offset=base)
                n = min(len(view), base + len(window) - offset)
                window[offset - base:offset - base + n] = view[:n]
                view = view[n:]
                offset += n
    except (OSError, ValueError, MemoryError):
        return False
    finally:
        if window is not None:
            window.close()
    return True


def _name_security_errors(record: dict) -> None:
    """A run that ended on a blocked action is a security_violation, not a runtime error."""
    error = record.get("error")
    if not error or error.get("kind") != "runtime_error":
        return
    if error.get("type") == "SecurityViolation":
        error["kind"] = "security_violation"
        # the page words the frame in its language; what was blocked is quoted as the policy said it
        what = BLOCKED.fullmatch(str(error.get("message", "")))
        if what:
            error["wording"] = {"key": "error_message.blocked", "params": {"quote": what.group(1)[:900]}}
    elif error.get("type") in ("PermissionError", "OSError") and str(error.get("message", "")).startswith(
            ("[Errno 1]", "[Errno 13]")):
        # The kernel layers answered (seccomp says EPERM, Landlock says EACCES).
        error["kind"] = "security_violation"
        error["wording"] = {"key": "error_message.blocked_by_os", "params": {"quote": error["message"]}}
        error["message"] = ("Blocked by the sandbox: the operating system refused an operation that "
                            f"runs may not do (files outside the scratch folder, programs, network). "
                            f"({error['message']})")


BLOCKED = re.compile(r"Blocked by the sandbox: (.*) is not allowed in Dagscope\.", re.S)    # policy.py _deny


def encode_record(record: dict, max_bytes: int) -> bytes:
    """JSON of the record, leaving out whole graphs from the end when it would be too large.

    Each graph's JSON is made once, and only while the record still has room, and the record's
    `graphs` (its last key) is joined from them: making the whole record's JSON again for each
    graph left out was most of a many-graph run's writing (ex_time_sequence_prediction: a 26 MB
    record, four times)."""
    graphs = record.get("graphs")
    if not graphs:
        return _dumps(record)
    rest = {k: v for k, v in record.items() if k != "graphs"}
    room = max_bytes - len(_dumps({**rest, "graphs": []}))
    parts: list[bytes] = []
    for g in graphs:            # the kept graphs are a prefix: past the first that overflows, none is written
        if room < 0:
            break
        parts.append(_dumps(g))
        room -= len(parts[-1]) + 1
    keep = len(parts)
    while True:
        rest = {k: v for k, v in record.items() if k != "graphs"}
        if keep < len(graphs):
            rest["warnings"] = [*record.get("warnings", []), f"{len(graphs) - keep} graph(s) left out: "
                                f"the run record would have been larger than {max_bytes} bytes"]
            # its wording for the page (engine/record/messages.py: one entry per warning, or none)
            said = record.get("warning_messages") or []
            rest["warning_messages"] = [*said, *[None] * (len(rest["warnings"]) - 1 - len(said)),
                                        {"key": "warning.graphs_left_out",
                                         "params": {"n": len(graphs) - keep, "bytes": max_bytes}}]
        rest["graphs"] = []
        head = _dumps(rest)     # ends with '"graphs":[]}' (or '"graphs": []}')
        # lengths in bytes (UTF-8); "," between graphs
        if keep == 0 or len(head) + sum(map(len, parts[:keep])) + (keep - 1) <= max_bytes:
            break
        keep -= 1
    del graphs[keep:]
    return head[:-2] + b",".join(parts[:keep]) + head[-2:]


def _dumps(obj) -> bytes:
    """obj's JSON, UTF-8: what json.dumps(obj, allow_nan=False, default=str) says, read back the
    same (floats in their shortest form that reads back as the same double, no spaces, characters
    unescaped), by orjson; by json where orjson will not (an integer past 64 bits, a lone surrogate,
    nesting past 254) or is not installed. A float that is not finite, which json refused (and the
    run ended in internal_error), is written null by orjson: the record stays strict JSON."""
    if orjson is not None:
        try:
            return orjson.dumps(obj, default=_as_json, option=_ORJSON_OPTIONS)
        except (TypeError, ValueError):
            pass
    return json.dumps(obj, allow_nan=False, default=str).encode()


def _as_json(value):
    """orjson's default: what json writes for a value orjson does not take (numpy's float64 is a float
    to json, a number; anything else it does not know, default=str's string)."""
    if isinstance(value, float):
        return float(value)
    return str(value)


# dataclasses and dates as json would write them (default=str), dict keys that are not strings as json does
_ORJSON_OPTIONS = (orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATACLASS | orjson.OPT_PASSTHROUGH_DATETIME
                   if orjson is not None else 0)


def _write_frame(fd: int, payload: bytes) -> None:
    _write_all(fd, frame(payload))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        try:
            n = os.write(fd, view)
        except OSError:
            return
        view = view[n:]
