"""Shape and dtype rules shared by op families."""
from __future__ import annotations

import numpy as np

from engine.ops.dtypes import result_type, to_float
from engine.ops.registry import Spec


def broadcast(*specs: Spec, **_) -> Spec:
    return Spec(tuple(np.broadcast_shapes(*(s.shape for s in specs))), result_type(*specs))


def broadcast_float(*specs: Spec, **_) -> Spec:
    out = broadcast(*specs)
    return Spec(out.shape, to_float(out.dtype))


def broadcast_bool(*specs: Spec, **_) -> Spec:
    return Spec(broadcast(*specs).shape, np.dtype(np.bool_))


def same(x: Spec, *_, **__) -> Spec:
    return x


def same_float(x: Spec, *_, **__) -> Spec:
    return Spec(x.shape, to_float(x.dtype))


def normalize_dims(dim, ndim: int) -> tuple[int, ...] | None:
    """`dim` as a sorted tuple of non-negative axes, or None for all axes."""
    if dim is None:
        return None
    if type(dim) is int and 0 <= dim < ndim:          # the common case, already normal
        return (dim,)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    out = []
    for d in dims:
        if not -max(ndim, 1) <= d < max(ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-max(ndim, 1)}, {max(ndim, 1) - 1}], but got {d})")
        out.append(d % max(ndim, 1))
    return tuple(sorted(set(out)))


def reduced_shape(shape: tuple[int, ...], dim, keepdim: bool) -> tuple[int, ...]:
    axes = normalize_dims(dim, len(shape))
    if axes is None:
        axes = tuple(range(len(shape)))
    if keepdim:
        return tuple(1 if i in axes else s for i, s in enumerate(shape))
    return tuple(s for i, s in enumerate(shape) if i not in axes)


def sum_to_axes(shape: tuple[int, ...], target: tuple[int, ...]) -> tuple[int, ...]:
    """Axes of `shape` to sum so that it broadcasts back to `target` (leading and size-1 dims)."""
    lead = len(shape) - len(target)
    return tuple(range(lead)) + tuple(i + lead for i, t in enumerate(target)
                                      if t == 1 and shape[i + lead] != 1)
