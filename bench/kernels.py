"""Kernel benchmark: tanh-approximation GELU on 4M float32, Dagscope's compiled kernel against numpy,
a hand-written C loop and the memory-bandwidth floor (a copy), plus compile latency cold and warm.

    .venv/bin/python bench/kernels.py          # prints markdown tables (bench/RESULTS.md keeps them)

Everything runs in one process, side by side, single-threaded (no OpenMP in the kernels; numpy's
elementwise ufuncs are single-threaded too). PyTorch eager / torch.compile rows appear when a real
PyTorch is importable.
"""
from __future__ import annotations

import ctypes
import datetime
import math
import os
import platform
import resource
import statistics
import sys
import tempfile
import time

# Same thread count for every variant, set before numpy loads its BLAS: `--threads N` (default 1;
# with 2 threads on a shared 2-core machine OpenBLAS's spinning threads make timings erratic).
THREADS = sys.argv[sys.argv.index("--threads") + 1] if "--threads" in sys.argv else "1"
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ[_var] = THREADS

import numpy as np  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from peer import real_torch  # noqa: E402  (bench/ is on sys.path: this script's own folder)

N = 4 * 1024 * 1024
C0 = math.sqrt(2.0 / math.pi)

HAND_C = r"""
#include <math.h>
#include <stdint.h>
/* what a person writes first: one loop, libm's tanhf (a call per element: not vectorized) */
void gelu_tanh(const float *x, float *y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float v = x[i];
    y[i] = 0.5f * v * (1.0f + tanhf(0.7978845608028654f * (v + 0.044715f * v * v * v)));
  }
}
/* what an expert writes: the same loop with a vectorizable rational tanh inlined by hand
   (Eigen's coefficients, the ones Dagscope's generated code uses) */
void gelu_tanh_fast(const float *restrict x, float *restrict y, int64_t n) {
  for (int64_t i = 0; i < n; i++) {
    float v = x[i];
    float t = 0.7978845608028654f * (v + 0.044715f * v * v * v);
    float c = t > 7.90531110763549805f ? 7.90531110763549805f : (t < -7.90531110763549805f ? -7.90531110763549805f : t);
    float c2 = c * c;
    float p = ((((((-2.76076847742355e-16f * c2 + 2.00018790482477e-13f) * c2 - 8.60467152213735e-11f) * c2
               + 5.12229709037114e-08f) * c2 + 1.48572235717979e-05f) * c2 + 6.37261928875436e-04f) * c2
               + 4.89352455891786e-03f) * c;
    float q = ((1.19825839466702e-06f * c2 + 1.18534705686654e-04f) * c2 + 2.26843463243900e-03f) * c2
              + 4.89352518554385e-03f;
    float th = p / q;
    th = (t < 0 ? -t : t) < 0.0004f ? t : th;
    y[i] = 0.5f * v * (1.0f + th);
  }
}
"""


# ---- helpers shared with bench/training.py ------------------------------------------------------

def median_ms(fn, repeats: int = 15, warmup: int = 2, clock=time.perf_counter) -> float:
    for _ in range(warmup):
        fn()
    samples = []
    for _ in range(repeats):
        t0 = clock()
        fn()
        samples.append((clock() - t0) * 1000)
    return statistics.median(samples)


def interleaved(variants: dict, repeats: int, faults: dict | None = None) -> dict:
    """{name: (min wall ms, median wall ms, median CPU ms)}, the variants run round-robin so a
    load spike on this shared machine hits all of them alike; min wall is the least disturbed.
    `faults`, when given, receives each variant's mean minor page faults per call."""
    for fn in variants.values():
        fn()                                       # warm: first-call costs are not measured
    wall = {k: [] for k in variants}
    cpu = {k: [] for k in variants}
    flt = {k: 0 for k in variants}
    for _ in range(repeats):
        for name, fn in variants.items():
            f0 = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            c0, t0 = time.process_time(), time.perf_counter()
            fn()
            wall[name].append((time.perf_counter() - t0) * 1000)
            cpu[name].append((time.process_time() - c0) * 1000)
            flt[name] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - f0
    if faults is not None:
        faults.update({k: v / repeats for k, v in flt.items()})
    return {k: (min(wall[k]), statistics.median(wall[k]), statistics.median(cpu[k])) for k in variants}


def machine() -> str:
    cpu = platform.processor() or "?"
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), cpu)
    except OSError:
        pass
    threads = {k: os.environ[k] for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
               if k in os.environ}
    try:
        with open("/proc/loadavg") as f:
            load = f.read().split()[0]
    except OSError:
        load = "?"
    return (f"{datetime.datetime.now(datetime.timezone.utc):%Y-%m-%d %H:%M} UTC, nproc={os.cpu_count()}, "
            f"CPU: {cpu}, Python {platform.python_version()}, numpy {np.__version__}, "
            f"thread env: {threads or 'default'}, load average at start: {load}")


def table(title: str, header: list[str], rows: list[list]) -> str:
    cells = [list(map(str, header))] + [[f"{c:.2f}" if isinstance(c, float) else str(c) for c in r] for r in rows]
    widths = [max(len(r[i]) for r in cells) for i in range(len(header))]
    lines = [f"#### {title}", "", "| " + " | ".join(h.ljust(w) for h, w in zip(cells[0], widths)) + " |",
             "|" + "|".join("-" * (w + 2) for w in widths) + "|"]
    lines += ["| " + " | ".join(c.ljust(w) for c, w in zip(r, widths)) + " |" for r in cells[1:]]
    return "\n".join(lines) + "\n"


def fresh_cache() -> str:
    """Point the kernel cache at an empty directory (cold compiles) and forget loaded modules."""
    from engine.codegen import loader
    path = tempfile.mkdtemp(prefix="dagscope-bench-cache-")
    os.environ["DAGSCOPE_KERNEL_CACHE"] = path
    loader.forget_loaded()
    return path


# ---- the GELU ------------------------------------------------------------------------------------

def gelu_graph(n: int, as_op: bool):
    from engine.ir.graph import Graph
    g = Graph("gelu")
    x = g.placeholder("x", (n,), np.float32)
    if as_op:
        g.output(g.call("gelu", x, approximate="tanh"))
        return g
    inner = g.call("mul", g.call("add", x, g.call("mul", g.call("pow_scalar", x, exponent=3), 0.044715)), C0)
    g.output(g.call("mul", g.call("mul", x, 0.5), g.call("add", g.call("tanh", inner), 1.0)))
    return g


def compile_gelu(as_op: bool):
    from engine.codegen.executor import build
    from engine.passes import run_pipeline
    t0 = time.perf_counter()
    optimized = run_pipeline(gelu_graph(N, as_op)).graph
    t1 = time.perf_counter()
    compiled = build(optimized)
    t2 = time.perf_counter()
    return compiled, (t1 - t0) * 1000, (t2 - t1) * 1000


def hand_c():
    from engine.codegen import cc
    data = cc._local_compile(HAND_C, cc.FLAGS)
    path = os.path.join(tempfile.mkdtemp(prefix="dagscope-hand-"), "hand.so")
    with open(path, "wb") as f:
        f.write(data)
    lib = ctypes.CDLL(path)
    for fn in (lib.gelu_tanh, lib.gelu_tanh_fast):
        fn.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64]
        fn.restype = None
    return lib.gelu_tanh, lib.gelu_tanh_fast


def numpy_out(x, y, t):
    np.multiply(x, x, out=t)
    np.multiply(t, x, out=t)
    np.multiply(t, 0.044715, out=t)
    np.add(t, x, out=t)
    np.multiply(t, C0, out=t)
    np.tanh(t, out=t)
    np.add(t, 1.0, out=t)
    np.multiply(x, 0.5, out=y)
    np.multiply(y, t, out=y)


def run_gelu(repeats: int = 21) -> str:
    from engine.codegen import cc
    rng = np.random.default_rng(0)
    x = rng.standard_normal(N).astype(np.float32)
    expected = (0.5 * x.astype(np.float64) * (1 + np.tanh(C0 * (x + 0.044715 * x.astype(np.float64) ** 3))))
    y, t = np.empty_like(x), np.empty_like(x)
    variants, checks = {}, {}

    def add(name, fn, result=None):
        variants[name] = fn
        checks[name] = result

    add("copy into a preallocated array (bandwidth floor)", lambda: np.copyto(y, x))
    add("copy into a fresh array (x.copy())", lambda: x.copy())
    add("numpy naive (x*x*x, new arrays)",
        lambda: 0.5 * x * (1 + np.tanh(C0 * (x + 0.044715 * (x * x * x)))),
        lambda: 0.5 * x * (1 + np.tanh(C0 * (x + 0.044715 * (x * x * x)))))
    add("numpy with out= buffers", lambda: numpy_out(x, y, t), lambda: (numpy_out(x, y, t), y)[1])
    backend = "c" if cc.have_compiler() else "numpy"
    if backend == "c":
        fn, fast = hand_c()
        add("hand-written C loop (libm tanhf, same flags)", lambda: fn(x.ctypes.data, y.ctypes.data, N),
            lambda: (fn(x.ctypes.data, y.ctypes.data, N), y)[1])
        add("hand-written C loop (rational tanh inlined, same flags)",
            lambda: fast(x.ctypes.data, y.ctypes.data, N), lambda: (fast(x.ctypes.data, y.ctypes.data, N), y)[1])
    fresh_cache()
    expr, _, _ = compile_gelu(as_op=False)
    op, _, _ = compile_gelu(as_op=True)
    add(f"Dagscope compiled, user's expression ({backend})", lambda: expr(x), lambda: expr(x)[0])
    add(f"Dagscope compiled, gelu(approximate='tanh') op ({backend})", lambda: op(x), lambda: op(x)[0])
    k = op.current.units[0]
    if backend == "c" and hasattr(k, "function"):
        out = np.empty_like(x)
        add("Dagscope kernel alone (ctypes call, preallocated output)",
            lambda: k.function(x.ctypes.data, out.ctypes.data), lambda: (k.function(x.ctypes.data, out.ctypes.data), out)[1])
    torch = real_torch()
    if torch is not None:
        tx = torch.from_numpy(x)
        f = lambda a: 0.5 * a * (1 + torch.tanh(C0 * (a + 0.044715 * a * a * a)))  # noqa: E731
        add("PyTorch eager", lambda: f(tx), lambda: f(tx).numpy())
        cf = torch.compile(f)
        add("torch.compile", lambda: cf(tx), lambda: cf(tx).numpy())
    rows = []
    for name, (best, med, cpu) in interleaved(variants, repeats).items():
        err = f"{float(np.max(np.abs(checks[name]() - expected))):.1e}" if checks[name] else "-"
        rows.append([name, best, med, cpu, 2 * x.nbytes / best / 1e6, err])
    return table(f"tanh-GELU on {N:,} float32 ({repeats} interleaved rounds; GB/s from the min, "
                 f"counting 4 B read + 4 B written per element)",
                 ["variant", "min ms", "median ms", "median CPU ms", "GB/s", "max abs err vs float64"], rows)


def run_compile_latency() -> str:
    from engine.codegen import loader
    rows = []
    for as_op in (False, True):
        name = "GELU op" if as_op else "GELU expression (8 ops)"
        fresh_cache()
        for label in ("cold (empty cache)", "warm (disk cache)", "warm (in process)"):
            if label == "warm (disk cache)":
                loader.forget_loaded()         # as a new process would: only the disk cache is warm
            compiled, pipe_ms, build_ms = compile_gelu(as_op)
            rows.append([name, label, pipe_ms, build_ms, compiled.compile_ms, pipe_ms + build_ms])
    return table("compile latency, GELU, ms", ["graph", "cache", "pass pipeline",
                                               "build (lower, render, cc, dlopen)", "of which the C compiler",
                                               "total"], rows)


def run_openmp_check(repeats: int = 9) -> str:
    """Does `-fopenmp` pay off here? The same generated kernel, compiled with and without it."""
    from engine.codegen import cc
    if not cc.have_compiler():
        return ""
    from engine.codegen.c_render import render_module
    from engine.codegen.kernel import lower
    from engine.passes import run_pipeline
    rows = []
    for n in (64 * 1024, N):
        g = run_pipeline(gelu_graph(n, as_op=True)).graph
        kernel = lower(g, g.fusion_groups[0])
        # every core, whatever OMP_NUM_THREADS says (it is 1 here so BLAS runs single-threaded)
        pragma = f"  #pragma omp parallel for num_threads({os.cpu_count()})\n  for (int64_t i0"
        src = render_module([kernel]).replace("  for (int64_t i0", pragma, 1)
        x = np.random.default_rng(1).standard_normal(n).astype(np.float32)
        y = np.empty_like(x)
        times = []
        for flags in (cc.FLAGS, cc.FLAGS + ("-fopenmp",)):
            data = cc._local_compile(src + "\nconst char dagscope_kernel_key[] = \"x\";\n", flags)
            path = os.path.join(tempfile.mkdtemp(prefix="dagscope-omp-"), "k.so")
            with open(path, "wb") as f:
                f.write(data)
            fn = getattr(ctypes.CDLL(path), kernel.name)
            fn.argtypes, fn.restype = [ctypes.c_void_p, ctypes.c_void_p], None
            times.append(median_ms(lambda: fn(x.ctypes.data, y.ctypes.data), repeats))
        rows.append([f"{n:,}", times[0], times[1]])
    return table(f"OpenMP or not: the GELU kernel single-threaded vs `#pragma omp parallel for` "
                 f"({os.cpu_count()} cores, ms)", ["elements", "single-threaded", "-fopenmp"], rows)


def main() -> None:
    print(f"Machine: {machine()}\n")
    print(run_gelu())
    print(run_compile_latency())
    print(run_openmp_check())


if __name__ == "__main__":
    main()
