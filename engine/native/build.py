"""C source -> shared library with the system compiler, through a disk cache safe for concurrent
processes: what engine/native builds fastops.c with, and engine/codegen (cc.py) its kernels.

The cache key is sha256(source + flags + compiler identity), where the identity includes the CPU
model because `-march=native` makes the binary CPU-specific. Entries are written to a temporary
file in the cache directory and renamed into place (`os.replace` is atomic on POSIX), so several
processes compiling the same kernel at once each produce a complete file and the last rename
wins. The directory is bounded: after each insert the least recently used entries are evicted.

`refuse_source(reason)` stops this process from compiling any C source at all, here or through
engine/codegen/cc.py (the sandbox's child: its kernels go to the supervisor as descriptions, and
fastops.c was built in the zygote before any run). It lives here, below both, so that one switch
stops every compile.
"""
from __future__ import annotations

import contextlib
import functools
import hashlib
import os
import platform
import secrets
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path

LIBS = ("-lm",)
DEFAULT_CACHE_MB = 256
COMPILE_TIMEOUT_S = 60


class CompileError(RuntimeError):
    """The C compiler rejected generated source (a Dagscope bug: the message has its stderr)."""


def compiler() -> str | None:
    """Path of the C compiler, or None (then the numpy backend runs the plan).
    DAGSCOPE_BACKEND=numpy forces the fallback; DAGSCOPE_CC or CC pick the compiler."""
    if os.environ.get("DAGSCOPE_BACKEND", "").lower() == "numpy":
        return None
    return shutil.which(os.environ.get("DAGSCOPE_CC") or os.environ.get("CC") or "cc")


@functools.lru_cache(maxsize=8)
def _identity(cc: str) -> str:
    try:
        version = subprocess.run([cc, "--version"], capture_output=True, text=True, timeout=10).stdout
    except (OSError, subprocess.SubprocessError):
        version = "unknown"
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    return f"{version.splitlines()[0] if version else ''}|{platform.machine()}|{cpu.strip()}"


def compiler_identity() -> str:
    cc = compiler()
    return _identity(cc) if cc else "service"


def cache_dir() -> Path:
    """DAGSCOPE_KERNEL_CACHE, else $XDG_CACHE_HOME/dagscope/kernels (~/.cache/dagscope/kernels)."""
    explicit = os.environ.get("DAGSCOPE_KERNEL_CACHE")
    if explicit:
        path = Path(explicit)
    else:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
        path = Path(base) / "dagscope" / "kernels"
    path.mkdir(parents=True, exist_ok=True)
    return path


def cache_limit_bytes() -> int:
    return int(float(os.environ.get("DAGSCOPE_KERNEL_CACHE_MB", DEFAULT_CACHE_MB)) * 1024 * 1024)


def cache_key(source: str, flags) -> str:
    h = hashlib.sha256()
    for part in (source, " ".join(flags), compiler_identity()):
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()


def stamp(source: str, key: str) -> str:
    """The source with its key embedded, so the loader can tell a stale or swapped file."""
    return source + f'\nconst char dagscope_kernel_key[] = "{key}";\n'


_source_refusal: str | None = None


def refuse_source(reason: str) -> None:
    """From now on this process compiles no C source (the sandbox's child: only kernel
    descriptions go to the trusted side)."""
    global _source_refusal
    _source_refusal = reason


def _local_compile(source: str, flags) -> bytes:
    """Compile trusted source here (Dagscope's own files, or C rendered from a checked
    description) with the system compiler; its whole process group goes at the timeout."""
    if _source_refusal:
        raise CompileError(_source_refusal)
    cc = compiler()
    if cc is None:
        raise CompileError("no C compiler found")
    with tempfile.TemporaryDirectory(prefix="dagscope-cc-") as tmp:
        src, lib = os.path.join(tmp, "k.c"), os.path.join(tmp, "k.so")
        with open(src, "w") as f:
            f.write(source)
        proc = subprocess.Popen([cc, *flags, "-o", lib, src, *LIBS], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, start_new_session=True)
        try:
            _, err = proc.communicate(timeout=COMPILE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            raise CompileError(f"{cc} took longer than {COMPILE_TIMEOUT_S} s") from None
        finally:
            with contextlib.suppress(OSError):
                os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        if proc.returncode != 0:
            raise CompileError(f"{cc} failed ({proc.returncode}):\n{err.decode(errors='replace')[-4000:]}")
        with open(lib, "rb") as f:
            return f.read()


def entry_path(key: str) -> Path:
    return cache_dir() / f"{key}.so"


def write_atomic(path: Path, data: bytes) -> None:
    # not tempfile.mkstemp: it makes the path absolute, and a run's cache is ".kernels" in its
    # scratch folder, whose parent folders the run's uid may not search
    tmp = os.path.join(path.parent, f".{path.stem[:16]}.{secrets.token_hex(6)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


def compile_cached(source: str, flags) -> tuple[Path, str, float, bool]:
    """(library path, key, compile_ms, cache_hit) of trusted C source (Dagscope's own files;
    generated kernels go through engine/codegen/loader.load_kernels). A hit refreshes the entry's LRU
    time."""
    key = cache_key(source, flags)
    path = entry_path(key)
    if path.exists():
        with contextlib.suppress(OSError):
            os.utime(path)
        return path, key, 0.0, True
    return build(source, key, flags)


def build(source: str, key: str, flags) -> tuple[Path, str, float, bool]:
    """Compile unconditionally (a miss, or a corrupt entry being replaced)."""
    start = time.perf_counter()
    data = _local_compile(stamp(source, key), tuple(flags))
    compile_ms = (time.perf_counter() - start) * 1000
    path = entry_path(key)
    write_atomic(path, data)
    evict(keep=path)
    return path, key, compile_ms, False


def evict(keep: Path | None = None, folder: Path | None = None) -> list[Path]:
    """Delete least recently used entries (of the cache, or of `folder` in it) until they fit
    the cache's size limit."""
    limit = cache_limit_bytes()
    entries = []
    for p in (folder or cache_dir()).glob("*.so"):
        with contextlib.suppress(OSError):
            st = p.stat()
            entries.append((st.st_mtime, st.st_size, p))
    total = sum(size for _, size, _ in entries)
    removed = []
    for _, size, p in sorted(entries, key=lambda e: e[0]):
        if total <= limit:
            break
        if keep is not None and p == keep:
            continue
        with contextlib.suppress(OSError):
            p.unlink()
            removed.append(p)
        total -= size
    return removed


def remove(path: Path) -> None:
    with contextlib.suppress(OSError):
        path.unlink()
