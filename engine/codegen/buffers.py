"""Storage for one specialization: the memory plan's shared buffers, made safe for views.

The memory plan (engine/passes/memory_planning.py) shares a buffer between values whose
lifetimes over the schedule of fusion groups do not overlap. The executor also creates views
(reshape, transpose, expand run as numpy views, not copies) which keep their source's memory
alive. So lifetimes are recomputed here over the executor's own steps, extended through views,
and a value shares its planned buffer only when that is still safe; otherwise it gets its own.
"""
from __future__ import annotations

import ctypes

import numpy as np


def nbytes(shape, dtype) -> int:
    return int(np.prod(shape, dtype=np.int64)) * np.dtype(dtype).itemsize


ALIGNMENT = 64        # a cache line and an AVX-512 vector: aligned loads, and BLAS's preferred layout


def address(a: np.ndarray) -> int:
    """The address of `a`'s first element. Through ctypes' buffer protocol when `a` is writable
    and C-contiguous (4x cheaper than `a.ctypes.data`, which a compiled call asks many times)."""
    try:
        return ctypes.addressof(_char_at(a))
    except (TypeError, ValueError, BufferError):     # read-only, strided, or empty
        return a.ctypes.data


_char_at = ctypes.c_char.from_buffer


def aligned_bytes(size: int) -> np.ndarray:
    """`size` bytes starting on an ALIGNMENT boundary (numpy itself guarantees only 16)."""
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    start = (-address(raw)) % ALIGNMENT
    return raw[start:start + size]


def aligned_array(shape: tuple, dtype: np.dtype, size: int) -> tuple[np.ndarray, int]:
    """An uninitialized array of `size` bytes starting on an ALIGNMENT boundary, and its address
    (one allocation per call of a compiled graph for each output: kept cheap)."""
    raw = np.empty(size + ALIGNMENT, dtype=np.uint8)
    at = address(raw)
    start = (-at) % ALIGNMENT
    return np.ndarray(shape, dtype, raw, start), at + start


def allocate(specs: dict[str, tuple], defined_at: dict[str, int], last_use: dict[str, int],
             assignment: dict[str, str]) -> tuple[dict[str, np.ndarray], dict]:
    """Arrays for the values in `specs` (value id -> (shape, dtype)).

    `defined_at`/`last_use` are step indices (last_use already extended through views);
    `assignment` is the memory plan's value -> buffer id. Returns (arrays, stats)."""
    arrays: dict[str, np.ndarray] = {}
    by_buffer: dict[str, list[str]] = {}
    for vid in specs:
        by_buffer.setdefault(assignment.get(vid, f"private:{vid}"), []).append(vid)
    raw_total = 0
    shared = 0
    for buf_id, vids in by_buffer.items():
        # one raw allocation per planned buffer, sized for its largest occupant
        vids.sort(key=lambda v: defined_at[v])
        storage: list[tuple[np.ndarray, int]] = []          # (raw bytes, busy until step)
        for vid in vids:
            shape, dtype = specs[vid]
            size = nbytes(shape, dtype)
            slot = next((i for i, (raw, busy) in enumerate(storage)
                         if busy < defined_at[vid] and raw.nbytes >= size), None)
            if slot is None:
                raw = aligned_bytes(max(1, max(nbytes(*specs[v]) for v in vids)))
                storage.append((raw, last_use[vid]))
                raw_total += raw.nbytes
            else:
                raw = storage[slot][0]
                storage[slot] = (raw, last_use[vid])
                shared += 1
            arrays[vid] = raw[:size].view(dtype).reshape(shape)
    return arrays, {"bytes": raw_total, "values": len(specs), "shared": shared}
