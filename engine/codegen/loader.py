"""The loader: a module of generated kernels as ctypes functions with explicit argtypes/restype.

`load_kernels(kernels)` describes the kernels as plain data (description.py), and looks the
module up by the description's key: in this process, then in the disk cache, else it has the
description compiled (cc.compile_kernels: here, or by the sandbox's broker). There is no entry
point that takes C source: the C is rendered from the checked description by whoever compiles.
Every kernel takes only pointers (sizes and strides are compiled in), so its argtypes are
`c_void_p` per buffer and it returns void. A cache entry that does not load, or whose embedded
key differs from the one asked for, is corrupt: it is deleted and compiled again, once.
"""
from __future__ import annotations

import contextlib
import ctypes
import _ctypes
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine.codegen import cc
from engine.codegen.description import canonical, describe, kernel_key
from engine.codegen.kernel import Kernel


@dataclass
class LoadedModule:
    functions: dict[str, ctypes._CFuncPtr]     # by the kernels' own names, and "__lib__"
    key: str
    path: Path
    compile_ms: float            # compiler time (0 on a cache hit)
    load_ms: float               # describing, hashing, cache lookup and dlopen
    cache_hit: bool
    recovered: bool = False      # a corrupt cache entry was replaced


_memo: dict[str, tuple[list, Path]] = {}     # in-process: a module loads once per key
_lock = threading.Lock()


def pointer_count(kernel: Kernel) -> int:
    return len(kernel.inputs) + len(kernel.outputs) + (1 if kernel.library else 0)


def _open(path: Path, key: str, counts: list[int]) -> list:
    """The library's functions k0..kN (as compiled from a description), the library last."""
    lib = ctypes.CDLL(str(path))
    # the key is a char array in the library (not a pointer): read it as one
    embedded = (ctypes.c_char * (len(key) + 1)).in_dll(lib, "dagscope_kernel_key").value
    if embedded.decode(errors="replace") != key:
        # unload it, or dlopen would hand back this same object (matched by path) after the rebuild
        _ctypes.dlclose(lib._handle)
        raise OSError(f"{path.name}: embedded key does not match")
    functions = []
    for i, n_args in enumerate(counts):
        fn = getattr(lib, f"k{i}")
        fn.argtypes = [ctypes.c_void_p] * n_args
        fn.restype = None
        functions.append(fn)
    return functions + [lib]          # the library stays mapped while any function lives


def _build(description: dict, path: Path) -> float:
    start = time.perf_counter()
    data = cc.compile_kernels(description)
    compile_ms = (time.perf_counter() - start) * 1000
    cc.write_atomic(path, data)
    cc.evict(keep=path)
    return compile_ms


def load_kernels(kernels: list[Kernel]) -> LoadedModule:
    """Compile (or fetch from the cache) and load one module holding `kernels`."""
    start = time.perf_counter()
    description = describe(kernels)
    key = kernel_key(canonical(description), cc.FLAGS)
    names = [k.name for k in kernels]
    with _lock:
        if key in _memo:
            functions, path = _memo[key]
            return LoadedModule({**dict(zip(names, functions)), "__lib__": functions[-1]}, key, path, 0.0,
                                (time.perf_counter() - start) * 1000, True)
    counts = [pointer_count(k) for k in kernels]
    path = cc.entry_path(cc.cache_key(key))       # the file's name also covers the compiler and CPU
    hit = path.exists()
    compile_ms, recovered = 0.0, False
    if hit:
        with contextlib.suppress(OSError):
            os.utime(path)
    else:
        compile_ms = _build(description, path)
    try:
        functions = _open(path, key, counts)
    except (OSError, AttributeError, ValueError):
        if not hit:
            raise
        cc.remove(path)                                  # corrupt or stale entry: rebuild it
        compile_ms = _build(description, path)
        functions = _open(path, key, counts)
        hit, recovered = False, True
    with _lock:
        _memo[key] = (functions, path)
    return LoadedModule({**dict(zip(names, functions)), "__lib__": functions[-1]}, key, path, compile_ms,
                        (time.perf_counter() - start) * 1000 - compile_ms, hit, recovered)


def forget_loaded() -> None:
    """Drop the in-process memo (tests and cold-compile benchmarks)."""
    with _lock:
        _memo.clear()
