"""Shapes: reshape, flatten, squeeze, transpose, permute, expand, cat, stack, narrow, split, chunk,
unbind."""
from __future__ import annotations

import builtins

import numpy as np

from engine.functional._common import _as_tensor, _dim
from engine.tensor import apply, numpy_keywords


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
