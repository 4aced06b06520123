"""Dagscope's eager operators in C (fastops.c) and its neural-network kernels (nnkernels.c): compiled
once per machine, each loaded as a CPython extension.

The recorded `x * y` is the eager hot path, and in Python its bookkeeping costs twice numpy's own
call. fastops.c does the same bookkeeping in C for the common case and calls the Python operator
for every other, so it changes speed only. It is compiled through the library cache (build.py:
content-hashed, shared between processes; codegen's kernels use it too) and loaded with importlib's
extension loader.
Without a compiler or Python's headers, or with DAGSCOPE_NATIVE=0, `load()` returns None and the
Python operators run; `status()` says which and why (bench/eager.py prints it). `load_kernels()` is
the same for nnkernels.c (engine/ops' fused loops: the numpy code runs without it).
"""
from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import subprocess
import sysconfig
from pathlib import Path

from engine.native import build

SOURCE = Path(__file__).with_name("fastops.c")
MODULE_NAME = "dagscope_fastops"        # must match PyInit_dagscope_fastops in the source
KERNELS_SOURCE = Path(__file__).with_name("nnkernels.c")
KERNELS_MODULE_NAME = "dagscope_nnkernels"
# -O2: the operators are calls into CPython; the numeric loops (random draws, erf, GELU) must round
# as numpy's passes do, so no fused multiply-add (-ffp-contract=off) and no fast-math. The include
# directory ties the cache entry to this Python's headers (and so to its ABI).
FLAGS = ("-O2", "-fPIC", "-shared", "-std=c11", "-ffp-contract=off", "-fvisibility=hidden",
         f"-I{sysconfig.get_paths()['include']}")

_status = "not loaded yet"
_module = None
_kernels_status = "not loaded yet"


def loaded():
    """The module the last successful `load()` returned (engine/tensor.py loads it once), or None."""
    return _module


def status() -> str:
    """'on', or why the Python operators run instead."""
    return _status


def kernels_status() -> str:
    """'on', or why engine/ops' numpy code runs instead of nnkernels.c."""
    return _kernels_status


def _exec(path: Path, name: str = MODULE_NAME):
    loader = importlib.machinery.ExtensionFileLoader(name, str(path))
    spec = importlib.util.spec_from_file_location(name, str(path), loader=loader)
    module = importlib.util.module_from_spec(spec)
    loader.exec_module(module)
    return module


def load():
    """The compiled module, or None (then the Python operators run)."""
    global _status, _module
    module, _status = _build_and_load(SOURCE, MODULE_NAME)
    if module is not None:
        _module = module
    return module


def load_kernels():
    """nnkernels.c's module, or None (then engine/ops' numpy code runs)."""
    global _kernels_status
    module, _kernels_status = _build_and_load(KERNELS_SOURCE, KERNELS_MODULE_NAME)
    return module


def _build_and_load(source_path: Path, name: str):
    """(module, 'on') or (None, why not)."""
    if os.environ.get("DAGSCOPE_NATIVE", "1") == "0":
        return None, "off: DAGSCOPE_NATIVE=0"
    source = source_path.read_text()
    try:
        path, key, _, hit = build.compile_cached(source, FLAGS)
        try:
            module = _exec(path, name)
        except ImportError:
            if not hit:
                raise
            build.remove(path)                # a corrupt cache entry: build it again, once
            path, key, _, hit = build.build(source, key, FLAGS)
            module = _exec(path, name)
    except (build.CompileError, OSError, ImportError, subprocess.SubprocessError) as exc:
        return None, f"off: {type(exc).__name__}: {str(exc).strip().splitlines()[0] if str(exc).strip() else ''}"
    return module, "on"
