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
        return data.array
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


def _sized(shape, size=None) -> tuple:
    if size is not None:
        shape = (size,)
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


def _make(arr, requires_grad) -> Tensor:
    t = Tensor(arr)
    if requires_grad:
        t.requires_grad_(True)
    return t


def zeros(*shape, size=None, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.zeros(_sized(shape, size), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def ones(*shape, size=None, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.ones(_sized(shape, size), _np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def full(shape, fill_value, dtype=None, requires_grad=False, device=None) -> Tensor:
    default = DEFAULT_FLOAT if isinstance(fill_value, float) else (
        np.dtype(np.bool_) if isinstance(fill_value, bool) else np.dtype(np.int64))
    return _make(np.full(_sized((shape,)), fill_value, _np_dtype(dtype, default)), requires_grad)


def randn(*shape, size=None, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    return _make(_rng.standard_normal(_sized(shape, size)).astype(_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def rand(*shape, size=None, dtype=None, requires_grad=False, device=None, generator=None) -> Tensor:
    return _make(_rng.random(_sized(shape, size)).astype(_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def randint(low, high=None, size=None, dtype=None, device=None, generator=None, requires_grad=False) -> Tensor:
    if size is None and isinstance(high, (tuple, list)):      # randint(high, size)
        low, high, size = 0, low, high
    elif high is None:
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    return Tensor(_rng.integers(low, high, size=_sized((size,))).astype(_np_dtype(dtype, np.int64)))


def randperm(n: int, dtype=None, device=None, generator=None, requires_grad=False) -> Tensor:
    return Tensor(_rng.permutation(int(n)).astype(_np_dtype(dtype, np.int64)))


def normal(mean=0.0, std=1.0, size=None, generator=None, dtype=None, requires_grad=False) -> Tensor:
    """torch.normal: tensor means/stds (broadcast) or float mean and std with a `size`."""
    m = mean.array if isinstance(mean, Tensor) else mean
    s = std.array if isinstance(std, Tensor) else std
    shape = _sized((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    dt = m.dtype if isinstance(m, np.ndarray) else (s.dtype if isinstance(s, np.ndarray) else DEFAULT_FLOAT)
    return _make(_rng.normal(m, s, size=shape).astype(_np_dtype(dtype, dt)), requires_grad)


def arange(start, end=None, step=1, dtype=None, requires_grad=False, device=None) -> Tensor:
    if end is None:
        start, end = 0, start
    is_float = any(isinstance(v, float) for v in (start, end, step))
    return _make(np.arange(start, end, step).astype(_np_dtype(dtype, DEFAULT_FLOAT if is_float else np.int64)),
                 requires_grad)


def from_numpy(arr: np.ndarray) -> Tensor:
    if not isinstance(arr, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(arr).__name__})")
    return Tensor(arr)       # shares memory with `arr`, as torch.from_numpy does


def as_tensor(data, dtype=None, device=None) -> Tensor:
    if isinstance(data, Tensor) and (dtype is None or _np_dtype(dtype) == data.array.dtype):
        return data
    if isinstance(data, np.ndarray) and (dtype is None or _np_dtype(dtype) == data.dtype):
        return Tensor(data)
    return tensor(data, dtype=dtype)


def empty(*shape, size=None, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    """Uninitialized in PyTorch (any values); zeros here, so runs are repeatable."""
    return zeros(*shape, size=size, dtype=dtype, requires_grad=requires_grad)


def linspace(start, end, steps: int, dtype=None, requires_grad=False, device=None) -> Tensor:
    start, end = (float(v.item()) if isinstance(v, Tensor) else v for v in (start, end))
    return _make(np.linspace(start, end, int(steps)).astype(_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.logspace(start, end, int(steps), base=base).astype(_np_dtype(dtype, DEFAULT_FLOAT)),
                 requires_grad)


def eye(n: int, m: int | None = None, dtype=None, requires_grad=False, device=None) -> Tensor:
    return _make(np.eye(int(n), None if m is None else int(m), dtype=_np_dtype(dtype, DEFAULT_FLOAT)), requires_grad)


# ---- *_like: same shape (and dtype, unless given) as another tensor ----

def _like_dtype(t: Tensor, dtype):
    return t.array.dtype if dtype is None else _np_dtype(dtype)


def zeros_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(np.zeros(t.array.shape, _like_dtype(t, dtype)), requires_grad)


def ones_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(np.ones(t.array.shape, _like_dtype(t, dtype)), requires_grad)


def empty_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return zeros_like(t, dtype=dtype, requires_grad=requires_grad)


def full_like(t: Tensor, fill_value, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(np.full(t.array.shape, fill_value, _like_dtype(t, dtype)), requires_grad)


def rand_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(_rng.random(t.array.shape).astype(_like_dtype(t, dtype)), requires_grad)


def randn_like(t: Tensor, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    return _make(_rng.standard_normal(t.array.shape).astype(_like_dtype(t, dtype)), requires_grad)


def randint_like(t: Tensor, low, high=None, dtype=None, requires_grad=False, device=None, **_) -> Tensor:
    if high is None:
        low, high = 0, low
    return _make(_rng.integers(low, high, size=t.array.shape).astype(_like_dtype(t, dtype)), requires_grad)
