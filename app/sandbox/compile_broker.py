"""Kernel compilation across the sandbox boundary.

The run's child may not start programs, so it cannot run `cc`. The engine's compiler step has a
seam for this (`engine.codegen.cc.set_compiler_service`): in the child it sends the C source and
flags to its supervisor (a trusted process forked from the same zygote, without the child's
locks), which checks the source, compiles it under its own limits into the shared kernel cache
(keyed by a hash of source and flags) and returns the library's bytes. The child writes them into
its own scratch-folder cache and loads them from there, so no run can plant a library that
another run would load.
"""
from __future__ import annotations

import hashlib
import os
import re
import resource
import socket
import subprocess
import tempfile

from app.sandbox.protocol import recv_frame, recv_json, send_frame, send_json

MAX_SOURCE_BYTES = 512 * 1024
MAX_LIBRARY_BYTES = 16 * 1024 * 1024
# The generator only emits these directives; anything else (#include "file", #define bombs,
# plugin pragmas) is refused before the compiler sees it.
_ALLOWED_DIRECTIVE = re.compile(r"#\s*(include\s*<(math|stdint|stddef|string)\.h>|pragma\s+omp\s+simd[\w\s():+,*]*)$")


class BrokerError(RuntimeError):
    """The compile service refused or failed; the engine falls back to its numpy backend."""


# ---- child side -------------------------------------------------------------------------------

def install_client(broker_fd: int) -> None:
    """Route the engine's compiler through the supervisor; kernels are cached in the scratch folder."""
    sock = socket.socket(fileno=broker_fd)
    os.environ["DAGSCOPE_KERNEL_CACHE"] = os.path.join(os.getcwd(), ".kernels")
    try:
        from engine.codegen import cc
    except ImportError:
        return

    def compile_remotely(source: str, flags) -> bytes:
        send_json(sock, {"source": source, "flags": list(flags)})
        answer = recv_json(sock, 64 * 1024)
        if "error" in answer:
            raise cc.CompileError(answer["error"])
        return recv_frame(sock, MAX_LIBRARY_BYTES)

    cc.set_compiler_service(compile_remotely)


# ---- supervisor side ------------------------------------------------------------------------

def serve_request(sock: socket.socket, deadline_s: float) -> None:
    """Answer one compile request from the child (called when its socket is readable)."""
    request = recv_json(sock, MAX_SOURCE_BYTES + 4096)
    try:
        library = compile_checked(str(request.get("source", "")), tuple(request.get("flags") or ()),
                                  max(1.0, deadline_s))
    except BrokerError as exc:
        send_json(sock, {"error": str(exc)})
        return
    send_json(sock, {"ok": True})
    send_frame(sock, library)


def compile_checked(source: str, flags: tuple, timeout_s: float) -> bytes:
    from engine.codegen import cc

    if len(source.encode()) > MAX_SOURCE_BYTES:
        raise BrokerError("kernel source too large")
    if flags != tuple(cc.FLAGS):
        raise BrokerError("unexpected compiler flags")
    for line in source.splitlines():
        if line.lstrip().startswith("#") and not _ALLOWED_DIRECTIVE.match(line.strip()):
            raise BrokerError(f"refused preprocessor line: {line.strip()[:80]}")
    compiler = cc.compiler()
    if compiler is None:
        raise BrokerError("no C compiler found")
    key = hashlib.sha256("\0".join((source, " ".join(flags), cc.compiler_identity())).encode()).hexdigest()
    cached = cc.cache_dir() / f"broker-{key}.so"
    if cached.exists():
        return cached.read_bytes()
    library = _run_compiler(compiler, source, flags, cc.LIBS, timeout_s)
    cc.write_atomic(cached, library)
    cc.evict(keep=cached)
    return library


def _compiler_limits() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))
    resource.setrlimit(resource.RLIMIT_CPU, (60, 61))
    resource.setrlimit(resource.RLIMIT_FSIZE, (64 << 20, 64 << 20))


def _run_compiler(compiler: str, source: str, flags: tuple, libs: tuple, timeout_s: float) -> bytes:
    with tempfile.TemporaryDirectory(prefix="dagscope-cc-") as tmp:
        src, lib = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.so")
        with open(src, "w") as f:
            f.write(source)
        try:
            proc = subprocess.run([compiler, *flags, "-o", lib, src, *libs], capture_output=True,
                                  text=True, timeout=min(timeout_s, 60), preexec_fn=_compiler_limits,
                                  start_new_session=True, stdin=subprocess.DEVNULL)
        except subprocess.TimeoutExpired:
            raise BrokerError("the C compiler took too long") from None
        if proc.returncode != 0:
            raise BrokerError(f"the C compiler failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
        with open(lib, "rb") as f:
            return f.read()
