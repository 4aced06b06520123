"""Shapes: reshape, flatten, squeeze, transpose, permute, expand, cat, stack, narrow, split, chunk,
unbind, flip, roll, repeat_interleave."""
from __future__ import annotations

import builtins

import numpy as np

from engine.functional._common import _as_tensor, _dim
from engine.tensor import Tensor, apply, numpy_keywords


def reshape(input, shape):
    return input.reshape(shape)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    if input.ndim == 0:
        return reshape(input, (1,))
    s, e = _dim(start_dim, input.ndim), _dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input.array.shape
    return reshape(input, shape[:s] + (int(np.prod(shape[s:e + 1], dtype=np.int64)),) + shape[e + 1:])


def squeeze(input, dim=None):
    if dim is None:
        return apply("squeeze", input)
    if isinstance(dim, (tuple, list)):
        return apply("squeeze", input, dim=tuple(_dim(d, input.ndim) for d in dim))
    return apply("squeeze", input, dim=_dim(dim, input.ndim))


def unsqueeze(input, dim: int):
    return apply("unsqueeze", input, dim=dim % (input.ndim + 1) if -input.ndim - 1 <= dim <= input.ndim else dim)


def transpose(input, dim0: int, dim1: int):
    return apply("transpose", input, dim0=_dim(dim0, input.ndim), dim1=_dim(dim1, input.ndim), fn="transpose")


def permute(input, dims):
    return apply("permute", input, dims=tuple(_dim(d, input.ndim) for d in dims))


def expand(input, *sizes):
    return input.expand(*sizes)


def broadcast_to(input, size):
    return input.expand(*size)


@numpy_keywords
def cat(tensors, dim: int = 0):
    tensors = [_as_tensor(t) for t in tensors]
    if not tensors:      # (a ValueError in PyTorch, unlike stack's RuntimeError)
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # (dim counts in the first tensor that is not a legacy empty 1-D one, which cat leaves out)
    first = next((t for t in tensors if t.array.shape != (0,)), tensors[0])
    return apply("cat", *tensors, dim=_dim(dim, first.ndim))


concat = concatenate = cat


@numpy_keywords
def stack(tensors, dim: int = 0):
    tensors = [_as_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return apply("stack", *tensors, dim=_dim(dim, tensors[0].ndim + 1))


def narrow(input, dim: int, start: int, length: int):
    d = _dim(dim, input.ndim)
    start = start % input.array.shape[d] if start < 0 else start
    return apply("slice", input, dim=d, start=start, end=start + length, step=1)


def split(tensor, split_size_or_sections, dim: int = 0):
    d = _dim(dim, tensor.ndim)
    size = tensor.array.shape[d]
    if isinstance(split_size_or_sections, int):
        step, fn = split_size_or_sections, "split"
        bounds = [(s, s + step) for s in range(0, size, step)] or [(0, 0)]
    else:
        edges, fn = np.cumsum([0] + list(split_size_or_sections)), "split_with_sizes"
        if edges[-1] != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={list(split_size_or_sections)}")
        bounds = list(zip(edges[:-1], edges[1:]))
    return tuple(apply("slice", tensor, dim=d, start=int(a), end=int(builtins.min(b, size)), step=1, fn=fn)
                 for a, b in bounds)


def chunk(input, chunks: int, dim: int = 0):
    size = input.array.shape[_dim(dim, input.ndim)]
    return split(input, builtins.max(-(-size // chunks), 1), dim)


def unbind(input, dim: int = 0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(int(dim), input.ndim)
    return tuple(apply("select", input, dim=d, index=i, fn="unbind") for i in range(input.array.shape[d]))


def _dims_tuple(dims, ndim: int) -> tuple[int, ...]:
    dims = (dims,) if isinstance(dims, int) else tuple(int(d) for d in dims)
    return tuple(_dim(d, ndim) for d in dims)


def flip(input, dims):
    dims = _dims_tuple(dims, builtins.max(input.ndim, 1))
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return apply("flip", input, dims=dims)


def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def roll(input, shifts, dims=None):
    shifts = (int(shifts),) if isinstance(shifts, int) else tuple(int(s) for s in shifts)
    dims = () if dims is None else _dims_tuple(dims, builtins.max(input.ndim, 1))
    if len(shifts) != len(dims) and not (not dims and len(shifts) == 1):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, dims:{len(dims)}")
    return apply("roll", input, shifts=shifts, dims=dims or None)


def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Each element (or slice along `dim`) repeated `repeats` times. With a number, PyTorch expands a new
    dim and views the copy back (ViewBackward0); with a tensor of counts, it index_selects
    (IndexSelectBackward0). torch.repeat_interleave(counts) alone gives the indices that repeat."""
    if repeats is None:                      # torch.repeat_interleave(repeats): arange(n) repeated
        counts = input.array
        if counts.ndim > 1 or counts.dtype.kind not in "iu":
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        return Tensor(np.repeat(np.arange(counts.size, dtype=np.int64), counts.reshape(-1)))
    if dim is None:
        input, dim = flatten(input), 0
    d = _dim(int(dim), builtins.max(input.ndim, 1))
    if isinstance(repeats, Tensor):
        counts = repeats.array.reshape(-1)
        if counts.size == 1:                  # one count for every slice (still an index_select)
            counts = np.repeat(counts, input.shape[d])
        if repeats.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        if counts.size != input.shape[d]:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{counts.size} and input.size({d}) = {input.shape[d]}")
        if (counts < 0).any():
            raise RuntimeError("repeats can not be negative")
        index = Tensor(np.repeat(np.arange(counts.size, dtype=np.int64), counts))
        return input.index_select(d, index)
    repeats = int(repeats)
    if repeats < 0:
        raise RuntimeError("Repeats must be non-negative")
    shape = tuple(input.shape)
    wide = input.unsqueeze(d + 1).expand(*shape[:d + 1], repeats, *shape[d + 1:]).clone()
    return wide.reshape(shape[:d] + (shape[d] * repeats,) + shape[d + 1:])
