"""The loader: a compiled module's kernels as ctypes functions with explicit argtypes/restype.

Every kernel takes only pointers (sizes and strides are compiled in), so its argtypes are
`c_void_p` per buffer and it returns void. A cache entry that does not load, or whose embedded
key differs from the one asked for, is corrupt: it is deleted and compiled again, once.
"""
from __future__ import annotations

import ctypes
import _ctypes
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from engine.codegen import cc


@dataclass
class LoadedModule:
    functions: dict[str, ctypes._CFuncPtr]
    key: str
    path: Path
    compile_ms: float            # compiler time (0 on a cache hit)
    load_ms: float               # hashing, cache lookup and dlopen
    cache_hit: bool
    recovered: bool = False      # a corrupt cache entry was replaced


_memo: dict[str, LoadedModule] = {}     # in-process: a module loads once per key
_lock = threading.Lock()


def _open(path: Path, key: str, signatures: dict[str, int]) -> dict[str, ctypes._CFuncPtr]:
    lib = ctypes.CDLL(str(path))
    # the key is a char array in the library (not a pointer): read it as one
    embedded = (ctypes.c_char * (len(key) + 1)).in_dll(lib, "dagscope_kernel_key").value
    if embedded.decode(errors="replace") != key:
        # unload it, or dlopen would hand back this same object (matched by path) after the rebuild
        _ctypes.dlclose(lib._handle)
        raise OSError(f"{path.name}: embedded key does not match")
    functions = {}
    for name, n_args in signatures.items():
        fn = getattr(lib, name)
        fn.argtypes = [ctypes.c_void_p] * n_args
        fn.restype = None
        functions[name] = fn
    functions["__lib__"] = lib        # keeps the library mapped while any function lives
    return functions


def load_module(source: str, signatures: dict[str, int], flags=cc.FLAGS) -> LoadedModule:
    """Compile (or fetch from the cache) and load; `signatures` maps kernel name -> pointer count."""
    start = time.perf_counter()
    key = cc.cache_key(source, flags)
    with _lock:
        if key in _memo:
            m = _memo[key]
            return LoadedModule(m.functions, key, m.path, 0.0, (time.perf_counter() - start) * 1000, True)
    path, key, compile_ms, hit = cc.compile_cached(source, flags)
    recovered = False
    try:
        functions = _open(path, key, signatures)
    except (OSError, AttributeError, ValueError):
        if not hit:
            raise
        cc.remove(path)                                  # corrupt or stale entry: rebuild it
        path, key, compile_ms, hit = cc.build(source, key, flags)
        functions = _open(path, key, signatures)
        recovered = True
    module = LoadedModule(functions, key, path, compile_ms,
                          (time.perf_counter() - start) * 1000 - compile_ms, hit, recovered)
    with _lock:
        _memo[key] = module
    return module


def forget_loaded() -> None:
    """Drop the in-process memo (tests and cold-compile benchmarks)."""
    with _lock:
        _memo.clear()
