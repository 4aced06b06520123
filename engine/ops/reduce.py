"""Reductions: sum and mean over any dims (keepdim), and sum_to_size, the broadcast undoer."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import REDUCE, OpDef, Spec, register
from engine.ops.shapes import normalize_dims, reduced_shape, sum_to_axes


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.int64)


def _sum_forward(x, dim=None, keepdim=False):
    return np.sum(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim, dtype=_sum_dtype(x.dtype))


def _mean_forward(x, dim=None, keepdim=False):
    return np.mean(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim)


def _expand_back(F, g, x, dim, keepdim):
    """Broadcast a reduced gradient back to x's shape."""
    if not keepdim:
        g = F.reshape(g, shape=reduced_shape(x.shape, dim, True))
    return F.expand(g, shape=tuple(x.shape))


def _numel_reduced(shape, dim) -> int:
    axes = normalize_dims(dim, len(shape))
    axes = range(len(shape)) if axes is None else axes
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


register(OpDef(
    "sum", REDUCE, _sum_forward,
    lambda x, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim), _sum_dtype(x.dtype)),
    lambda F, g, x, out, dim=None, keepdim=False: (_expand_back(F, g, x, dim, keepdim),),
    lambda x, dim=None, keepdim=False: "SumBackward0" if dim is None else "SumBackward1",
    "sum(x, dim)", "grad_x = grad broadcast back over the summed dims", attrs=("dim", "keepdim")))

register(OpDef(
    "mean", REDUCE, _mean_forward,
    lambda x, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim),
                                            x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)),
    lambda F, g, x, out, dim=None, keepdim=False: (
        F.div(_expand_back(F, g, x, dim, keepdim), float(max(_numel_reduced(x.shape, dim), 1))),),
    lambda x, dim=None, keepdim=False: "MeanBackward0" if dim is None else "MeanBackward1",
    "mean(x, dim)", "grad_x = grad / n broadcast back over the averaged dims", attrs=("dim", "keepdim")))


def _sum_to_forward(x, shape):
    axes = sum_to_axes(x.shape, tuple(shape))
    return (np.sum(x, axis=axes, keepdims=True) if axes else x).reshape(shape)


register(OpDef(
    "sum_to_size", REDUCE, _sum_to_forward,
    lambda x, shape: Spec(tuple(shape), x.dtype),
    lambda F, g, x, out, shape: (F.expand(g, shape=tuple(x.shape)),),
    "SumBackward1", "sum x down to `shape` (undoes broadcasting)",
    "grad_x = grad broadcast back to x's shape", attrs=("shape",)))
