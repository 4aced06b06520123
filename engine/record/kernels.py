"""Run-record pieces for a compiled static graph: its `kernels` and its `timings` (eager against
compiled on the user's own inputs, measured within a time budget so a big model cannot stall a run).

The capture code (torch.compile) calls, once per compiled graph::

    entry["kernels"] = kernels_record(compiled)
    entry["timings"] = timings(lambda: eager(*inputs), lambda: compiled(*arrays), compiled)
"""
from __future__ import annotations

import statistics
import time
from typing import Callable

DEFAULT_BUDGET_MS = 300.0      # per mode; the first run always counts, repeats only while in budget
MAX_REPEATS = 5


def _parts(compiled) -> list[tuple[str, object]]:
    """(label, CompiledGraph) pairs: a CompiledGraph, or a CompiledAutograd's forward and backward."""
    if hasattr(compiled, "compiled") and hasattr(compiled, "forward"):
        parts = [("forward", compiled.forward)]
        if getattr(compiled, "backward", None) is not None:
            parts.append(("backward", compiled.backward))
        return parts
    return [("forward", compiled)]


def kernels_record(compiled) -> list[dict]:
    """Every generated kernel: name, language ("c" | "numpy"), source, node ids, compile_ms, cache_hit,
    and which graph it belongs to (forward/backward)."""
    out = []
    for label, c in _parts(compiled):
        for k in c.kernels:
            out.append({**k, "graph": label})
    return out


def measure_ms(fn: Callable[[], object], budget_ms: float = DEFAULT_BUDGET_MS,
               max_repeats: int = MAX_REPEATS) -> tuple[float, int]:
    """(median ms, runs): at least one run, more while the budget lasts."""
    samples = []
    start = time.perf_counter()
    while len(samples) < max_repeats:
        t0 = time.perf_counter()
        fn()
        samples.append((time.perf_counter() - t0) * 1000)
        if (time.perf_counter() - start) * 1000 + samples[-1] > budget_ms:
            break
    return statistics.median(samples), len(samples)


def timings(eager: Callable[[], object] | None, compiled_call: Callable[[], object], compiled,
            budget_ms: float = DEFAULT_BUDGET_MS) -> dict:
    """{"eager_ms", "compiled_ms", "compile_ms", "cache_hit", "backend", "speedup", "runs", "note"}
    (note: why the numpy backend ran when C was expected, else None).
    The compiled call is warmed once first (its first call may page in fresh buffers)."""
    parts = [c for _, c in _parts(compiled)]
    compiled_call()
    compiled_ms, runs = measure_ms(compiled_call, budget_ms)
    eager_ms, eager_runs = measure_ms(eager, budget_ms) if eager is not None else (None, 0)
    return {"eager_ms": _round(eager_ms), "compiled_ms": _round(compiled_ms),
            "compile_ms": _round(sum(c.compile_ms for c in parts)),
            "cache_hit": all(c.cache_hit for c in parts),
            "backend": parts[0].backend,
            "speedup": _round(eager_ms / compiled_ms) if eager_ms and compiled_ms else None,
            "runs": {"eager": eager_runs, "compiled": runs},
            "note": next((c.fallback_reason for c in parts if getattr(c, "fallback_reason", None)), None)}


def _round(x):
    return None if x is None else round(float(x), 3)
