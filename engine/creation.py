"""Tensor creation: tensor, zeros, ones, full, arange, randn... with PyTorch's default dtypes."""
from __future__ import annotations

import numpy as np

from engine.ops.dtypes import DEFAULT_FLOAT
from engine.tensor import Tensor

_rng = np.random.default_rng(0)


def manual_seed(seed: int):
    global _rng
    _rng = np.random.default_rng(int(seed))
    return _rng


def rng() -> np.random.Generator:
    return _rng


def _np_dtype(dtype, default=None):
    if dtype is None:
        return default
    from engine.compat.torch_dtypes import to_numpy
    return to_numpy(dtype)


def _infer_dtype(arr: np.ndarray) -> np.dtype:
    if arr.dtype.kind == "f":
        return DEFAULT_FLOAT
    if arr.dtype.kind in "iu":
        return np.dtype(np.int64)
    if arr.dtype.kind == "b":
        return np.dtype(np.bool_)
    raise TypeError(f"can't convert values of type {arr.dtype} to a tensor")


def _unwrap(data):
    if isinstance(data, Tensor):
        return data.data
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def tensor(data, dtype=None, requires_grad: bool = False, device=None) -> Tensor:
    arr = np.asarray(_unwrap(data))
    if isinstance(data, np.ndarray) and dtype is None:
        target = arr.dtype
    else:
        target = _np_dtype(dtype, _infer_dtype(arr))
    t = Tensor(np.array(arr, dtype=target, copy=True))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _sized(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def _make(arr, requires_grad) -> Tensor:
    t = Tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*shape, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.zeros(_sized(shape), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def ones(*shape, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.ones(_sized(shape), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def full(shape, fill_value, dtype=None, requires_grad=False, device=None) -> Tensor:
    default = DEFAULT_FLOAT if isinstance(fill_value, float) else (
        np.dtype(np.bool_) if isinstance(fill_value, bool) else np.dtype(np.int64))
    return _make(np.full(_sized((shape,)), fill_value, _np_dtype(dtype, default)), requires_grad)


def randn(*shape, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    return _make(_rng.standard_normal(_sized(shape)).astype(_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def rand(*shape, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    return _make(_rng.random(_sized(shape)).astype(_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, generator=None) -> Tensor:
    if high is None:
        low, high = 0, low
    return Tensor(_rng.integers(low, high, size=_sized((size,))).astype(_np_dtype(dtype, np.int64)))


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None) -> Tensor:
    if end is None:
        start, end = 0, start
    is_float = any(isinstance(v, float) for v in (start, end, step))
    return _make(np.arange(start, end, step).astype(_np_dtype(dtype, DEFAULT_FLOAT if is_float else np.int64)),
                 requires_grad)


def from_numpy(arr: np.ndarray) -> Tensor:
    return Tensor(arr)
