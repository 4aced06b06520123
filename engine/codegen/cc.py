"""The compiler step for generated kernels: a kernel description -> shared library, here or in
the sandbox's supervisor, with the flags kernels are built with.

Generated kernels are compiled from their description (description.py), never from source
text handed in: `compile_kernels(description)` checks it, renders the C and compiles it, here or,
in the sandbox's child (which may not run programs), through `set_compiler_service(fn)`: the
supervisor does the same on its side of the boundary. `refuse_source(reason)` then stops this
process from compiling any C source at all (the source path is for Dagscope's own files, e.g.
engine/native's fastops.c, built before a run starts).

The compiler itself and the content-addressed library cache are engine/native/build.py's (the
eager core builds fastops.c with them, below codegen); this module re-exports them with the kernel
flags as the default.
"""
from __future__ import annotations

from typing import Callable

from engine.native import build as _build
from engine.native.build import (COMPILE_TIMEOUT_S, DEFAULT_CACHE_MB, LIBS, CompileError,  # noqa: F401
                                 _local_compile, cache_dir, cache_limit_bytes, compiler, compiler_identity,
                                 entry_path, evict, refuse_source, remove, stamp, write_atomic)

# Flags, and why:
#   -O3               vectorizes the flat elementwise loops (the whole point of fusing them).
#   -march=native     AVX2/AVX-512 and FMA on the machine that runs the kernel; the CPU model is
#                     part of the cache key, so a shared cache never hands a binary to another CPU.
#   -fno-math-errno   sqrt/exp need not set errno, so sqrtf becomes one vsqrtps. Unlike
#                     -ffast-math it keeps NaN/inf semantics (no -ffinite-math-only: isnan and
#                     the NaN-propagating max/min stay correct) and evaluation order (no
#                     reassociation: sums keep their order unless we ask for `omp simd`).
#   -fno-trapping-math  lets comparisons and divisions be if-converted into vector selects
#                     (ds_tanhf's clamps): we never read FP exception flags. Results, NaN and inf
#                     included, are unchanged; without it no loop containing a select vectorizes.
#   -fopenmp-simd     honours `#pragma omp simd reduction(+:acc)` on reduction loops (explicit,
#                     local permission to reassociate) without linking the OpenMP runtime.
#                     No -fopenmp: DESIGN.md measured parallel regions costing several ms on
#                     these 2-core machines, slower than single-threaded kernels; bench/kernels.py
#                     re-measures it.
#   -fPIC -shared     a loadable library; -std=c11 for `restrict`-free, portable C.
FLAGS = ("-O3", "-march=native", "-fno-math-errno", "-fno-trapping-math", "-fopenmp-simd", "-fPIC", "-shared", "-std=c11")


def cache_key(source: str, flags=FLAGS) -> str:
    return _build.cache_key(source, flags)


def compile_cached(source: str, flags=FLAGS):
    """(library path, key, compile_ms, cache_hit) of trusted C source: engine/native/build.py's."""
    return _build.compile_cached(source, flags)


def build(source: str, key: str, flags=FLAGS):
    """Compile unconditionally (a miss, or a corrupt entry being replaced): engine/native/build.py's."""
    return _build.build(source, key, flags)


def compile_kernels_here(description: dict) -> bytes:
    """The library of a kernel description: checked, rendered and compiled in this process."""
    # Imported here: description.py pulls in the renderers and the IR, and the supervisor imports
    # this module only to ask for the compiler (app/sandbox/compile_broker.toolchain).
    from engine.codegen.description import InvalidDescription, canonical, compiled_source, kernel_key
    try:
        source = compiled_source(description)
    except InvalidDescription as exc:
        raise CompileError(f"refused kernel description: {exc}") from None
    return _local_compile(stamp(source, kernel_key(canonical(description), FLAGS)), FLAGS)


_service: Callable[[dict], bytes] = compile_kernels_here


def set_compiler_service(fn: Callable[[dict], bytes] | None) -> None:
    """Route kernel compilation through `fn(description) -> shared-library bytes` (None: here)."""
    global _service
    _service = fn or compile_kernels_here


def compile_kernels(description: dict) -> bytes:
    return _service(description)


def have_compiler() -> bool:
    return _service is not compile_kernels_here or compiler() is not None
