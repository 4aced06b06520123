"""Kernel compilation across the sandbox boundary: a run describes its kernels, the supervisor
writes and compiles the C.

The run's child may not start programs, and it never sends C: the engine's compiler seam
(`engine.codegen.cc.set_compiler_service`) sends its supervisor a description of the kernels it
lowered (engine/codegen/description.py: dims, dtypes, shapes, strides, ops, attrs, literals, as
JSON), and C source compiles are refused in the child altogether (`cc.refuse_source`). The
supervisor (trusted, forked from the same zygote, without the child's locks) checks the
description field by field, renders the C itself (generated names, no comments, nothing the run
chose but numbers), compiles it confined (app/sandbox/confine.py: its own PID namespace killed
whole at the run's deadline, rlimits within the run's memory, nobody's uid, Landlock allowing
only the toolchain, the system headers and its own folder, `-nostdinc` with the exact header
folders) and returns the library's bytes. The child writes them into its own scratch-folder
cache and loads them from there, so no run can plant a library that another run would load.

The supervisor's kernel cache is partitioned by client (`cache_partition`, from the server):
an entry one client's run compiled is a hit only for that client's runs, so how long a compile
takes tells a run nothing about what other clients ran. Entries in the "shared" partition
(compiled for the trusted side) are hits for everyone.
"""
from __future__ import annotations

import functools
import hashlib
import os
import re
import socket
import subprocess
import time

from app.sandbox import confine
from app.sandbox.protocol import recv_frame, recv_json, send_frame, send_json

MAX_REQUEST_BYTES = 4 * 1024 * 1024
MAX_LIBRARY_BYTES = 16 * 1024 * 1024
SHARED_PARTITION = "shared"
# what a description the checks let through but the renderer trips on raises: refused all the same
_RENDER_ERRORS = (TypeError, ValueError, KeyError, IndexError, AttributeError, ArithmeticError, RecursionError)
_PARTITION = re.compile(r"[0-9a-f]{16,64}|shared")


class BrokerError(RuntimeError):
    """The compile service refused or failed; the engine falls back to its numpy backend."""


class ProtocolError(RuntimeError):
    """The child broke the framing: it gets no more compiles (its socket is shut down)."""


# ---- child side -------------------------------------------------------------------------------

def install_client(broker_fd: int) -> str:
    """Route the engine's kernel compiles through the supervisor, and refuse every other compile
    in this process; kernels are cached in the scratch folder. Returns the compiler's layers
    (as the zygote found them) for the run record's `sandbox` list."""
    sock = socket.socket(fileno=broker_fd)
    # relative to the scratch folder (the cwd): the run's uid may not search the folders above it
    os.environ["DAGSCOPE_KERNEL_CACHE"] = ".kernels"
    try:
        from engine.codegen import cc
    except ImportError:
        return "compiler: no engine"

    def compile_remotely(description: dict) -> bytes:
        send_json(sock, description)
        answer = recv_json(sock, 64 * 1024)
        if "error" in answer:
            raise cc.CompileError(answer["error"])
        return recv_frame(sock, MAX_LIBRARY_BYTES)

    cc.set_compiler_service(compile_remotely)
    cc.refuse_source("C source is not compiled inside a run: the sandbox compiles only the kernels "
                     "the engine generates, from their description")
    return compiler_layers


compiler_layers = "compiler: not probed"


def probe_confinement() -> str:
    """Run the compiler once confined (in the zygote, before any run) to learn which layers hold
    here; every run reports them."""
    global compiler_layers
    try:
        compiler, _, reads = toolchain()
        result = confine.run([compiler, "--version"], read=list(reads), timeout_s=20,
                             new_network=os.environ.get("DAGSCOPE_NETNS") != "1")
        compiler_layers = ("compiler confined: " + ", ".join(result.layers)) if result.returncode == 0 \
            else f"compiler: could not run confined ({result.returncode})"
    except (BrokerError, OSError, subprocess.SubprocessError) as exc:
        compiler_layers = f"no compiler: the numpy backend runs kernels ({str(exc)[:80]})"
    return compiler_layers


# ---- supervisor side ------------------------------------------------------------------------

def serve_request(sock: socket.socket, budget_s: float, memory_mb: int, partition: str | None = None) -> None:
    """Answer one compile request from the child (called when its socket is readable) within
    `budget_s` seconds. Raises ProtocolError when the child broke the framing."""
    deadline = time.monotonic() + budget_s
    sock.settimeout(max(budget_s, 0.05))
    try:
        request = recv_json(sock, MAX_REQUEST_BYTES)
    except (ValueError, RecursionError, OSError) as exc:     # OSError: it stalled mid-frame
        raise ProtocolError(f"unreadable compile request: {str(exc)[:200]}") from None
    try:
        library = compile_description(request, deadline - time.monotonic(), memory_mb, partition)
    except BrokerError as exc:
        send_json(sock, {"error": str(exc)})
        return
    send_json(sock, {"ok": True})
    send_frame(sock, library)


def compile_description(description, timeout_s: float, memory_mb: int, partition: str | None) -> bytes:
    """The library of a kernel description, from the partition's cache or compiled confined."""
    from engine.codegen import cc
    from engine.codegen.description import InvalidDescription, canonical, kernel_key, rebuild, render_checked

    deadline = time.monotonic() + timeout_s
    if timeout_s <= 0:
        raise BrokerError("no time left in the run to compile kernels")
    try:
        kernels = rebuild(description)          # every field checked, hit or miss
        text = canonical(description)
    except InvalidDescription as exc:
        raise BrokerError(f"refused kernel description: {exc}") from None
    except _RENDER_ERRORS as exc:
        raise BrokerError(f"refused kernel description: {type(exc).__name__}") from None
    if partition is not None and not _PARTITION.fullmatch(partition):
        partition = None
    key = kernel_key(text, cc.FLAGS)
    name = hashlib.sha256(f"{key}\0{cc.compiler_identity()}".encode()).hexdigest()
    try:
        folder = cc.cache_dir() / "broker"
        folder.mkdir(exist_ok=True)
    except OSError:
        folder = partition = None                 # no cache to be had: compile, keep nothing
    for owner in dict.fromkeys((partition, SHARED_PARTITION)) if folder is not None else ():
        if owner is not None and (folder / f"{owner}-{name}.so").exists():
            path = folder / f"{owner}-{name}.so"
            os.utime(path)
            return path.read_bytes()
    try:
        source = render_checked(kernels)          # only on a miss: a hit needs the key alone
    except InvalidDescription as exc:
        raise BrokerError(f"refused kernel description: {exc}") from None
    except _RENDER_ERRORS as exc:
        raise BrokerError(f"refused kernel description: {type(exc).__name__}") from None
    left = deadline - time.monotonic()            # checking and rendering took some of it
    if left <= 0:
        raise BrokerError("no time left in the run to compile kernels")
    library = compile_confined(cc.stamp(source, key), left, memory_mb)
    if partition is not None:          # a run without a partition keeps nothing for later runs
        path = folder / f"{partition}-{name}.so"
        try:
            cc.write_atomic(path, library)
            cc.evict(keep=path, folder=folder)
        except OSError:
            pass                          # a full disk costs the next run a compile, not this one
    return library


@functools.lru_cache(maxsize=1)
def toolchain() -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """(compiler, its header folders in search order, every folder it reads): asked of the
    compiler once, on the trusted side (the zygote calls this before any run)."""
    from engine.codegen import cc
    compiler = cc.compiler()
    if compiler is None:
        raise BrokerError("no C compiler found")
    compiler = os.path.realpath(compiler)
    env = {"PATH": "/usr/bin:/bin", "LANG": "C"}
    try:
        verbose = subprocess.run([compiler, "-E", "-Wp,-v", "-xc", os.devnull], capture_output=True, text=True,
                                 timeout=30, env=env, stdin=subprocess.DEVNULL).stderr
        search = subprocess.run([compiler, "-print-search-dirs"], capture_output=True, text=True,
                                timeout=30, env=env, stdin=subprocess.DEVNULL).stdout
    except (OSError, subprocess.SubprocessError) as exc:
        raise BrokerError(f"the C compiler could not be asked for its folders: {exc}") from None
    lines = verbose.splitlines()
    try:
        first = lines.index("#include <...> search starts here:") + 1
        headers = tuple(os.path.realpath(line.strip()) for line in lines[first:lines.index("End of search list.")])
    except ValueError:
        raise BrokerError("the C compiler did not list its header folders") from None
    programs = [os.path.realpath(p) for line in search.splitlines() if line.startswith(("install:", "programs:"))
                for p in line.split(":", 1)[1].lstrip(" =").split(":") if p]
    reads = [*headers, *programs, os.path.dirname(compiler), "/usr/bin", "/usr/libexec", *confine.SHARED_LIBRARIES]
    return compiler, headers, tuple(p for p in dict.fromkeys(reads) if os.path.exists(p))


def compile_confined(source: str, timeout_s: float, memory_mb: int) -> bytes:
    """Compile C the trusted side rendered, in a confined compiler (confine.py) that may read only
    the toolchain, the system headers and its own folder, within `timeout_s` and `memory_mb`."""
    from engine.codegen import cc
    compiler, headers, reads = toolchain()
    includes = [arg for folder in headers for arg in ("-isystem", folder)]
    timeout_s = min(timeout_s, cc.COMPILE_TIMEOUT_S)
    with confine.workdir("dagscope-cc-") as tmp:
        with open(os.path.join(tmp, "k.c"), "w") as f:
            f.write(source)
        os.chmod(os.path.join(tmp, "k.c"), 0o644)
        argv = [compiler, *cc.FLAGS, "-nostdinc", *includes, "-o", "k.so", "k.c", *cc.LIBS]
        try:
            result = confine.run(argv, cwd=tmp, read=list(reads), write=[tmp], timeout_s=timeout_s,
                                 budget=confine.Budget(cpu_s=int(timeout_s) + 1, memory_mb=memory_mb, file_mb=64,
                                                       processes=64, open_files=256),
                                 # relative paths only: the folder's parents may be closed to nobody
                                 env={"PATH": "/usr/bin:/bin", "LANG": "C", "TMPDIR": "."},
                                 new_network=os.environ.get("DAGSCOPE_NETNS") != "1", max_output=64 * 1024)
        except (OSError, subprocess.SubprocessError) as exc:      # e.g. a layer's set-up failed
            raise BrokerError(f"the C compiler could not be started confined: {exc}") from None
        if result.timed_out:
            raise BrokerError(f"the C compiler took longer than the {timeout_s:.1f} s left in the run")
        if result.returncode != 0:
            raise BrokerError(f"the C compiler failed ({result.returncode}):\n"
                              f"{result.stderr.decode(errors='replace')[-2000:]}")
        path = os.path.join(tmp, "k.so")
        if os.path.getsize(path) > MAX_LIBRARY_BYTES:
            raise BrokerError("the compiled kernels are too large")
        with open(path, "rb") as f:
            return f.read()
