"""torch.cumsum/prod/unbind/var_mean/std_mean and the scatter and index_put family, as PyTorch 2.13
takes their arguments (re-exported by engine.functional; the Tensor methods call these)."""
from __future__ import annotations

import numbers

import numpy as np

from engine import autograd
from engine.errors import UnsupportedError
from engine.functional import _correction, _dim, _dims, _type_word
from engine.ops import OPS
from engine.tensor import Tensor, apply

__all__ = ["cumsum", "prod", "unbind", "var_mean", "std_mean", "scatter", "scatter_add", "index_put",
           "scatter_", "scatter_add_", "index_put_"]


def _dtype_attr(dtype) -> dict:
    """dtype= of cumsum and prod as the op's attribute (a numpy dtype name); none when not given."""
    from engine.compat.torch_dtypes import to_numpy
    return {} if dtype is None else {"dtype": to_numpy(dtype).name}


def cumsum(input, dim=None, *, dtype=None):
    if dim is None:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    return apply("cumsum", input, dim=_dim(int(dim), input.ndim), **_dtype_attr(dtype))


def prod(input, dim=None, keepdim: bool = False, *, dtype=None):
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (Tensor, {type(dim).__name__}), "
                        "but expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, int dim, "
                        "bool keepdim = False, *, torch.dtype dtype = None)")
    dims = None if dim is None else _dim(int(dim), input.ndim)
    return apply("prod", input, dim=dims, keepdim=bool(keepdim) if dims is not None else False, **_dtype_attr(dtype))


def unbind(input, dim: int = 0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = _dim(int(dim), input.ndim)
    return tuple(apply("select", input, dim=d, index=i, fn="unbind") for i in range(input.array.shape[d]))


def _moments(name: str, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):         # var_mean(x, False): the legacy positional `unbiased`
        dim, unbiased = None, dim
    if input.array.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = _dims(dim)
    spread = apply(name[:3], input, dim=dims, correction=_correction(unbiased, correction), keepdim=keepdim)
    mean = apply("mean", input, dim=dims, keepdim=keepdim)
    node_name = "VarMeanBackward0" if name == "var_mean" else "StdMeanBackward0"
    for out in (spread, mean):        # PyTorch records one node for both outputs, under this name
        if out.grad_fn is not None:
            out.grad_fn.rename(node_name)
    return spread, mean


def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("std_mean", input, dim, unbiased, keepdim, correction)


# ---- scatter ------------------------------------------------------------------------------------------

def _scatter_op(fn: str, input, dim, index, src, value, reduce):
    """(op name, extra inputs, attrs) for input.scatter(dim, index, src-or-value)."""
    if reduce is not None:
        raise UnsupportedError(f"{fn}(reduce={reduce!r}) is not supported by Dagscope (PyTorch deprecates it; "
                               "scatter_add covers reduce='add')")
    if not isinstance(index, Tensor):
        raise TypeError(f"{fn}(): argument 'index' (position 2) must be Tensor, not {type(index).__name__}")
    d = _dim(int(dim), input.ndim)
    if src is None and value is None:
        raise TypeError(f"{fn}() missing 1 required positional argument: 'src' or 'value'")
    given = src if src is not None else value
    if isinstance(given, Tensor):
        return "scatter", (index, given), {"dim": d}
    if isinstance(given, numbers.Number):
        return "scatter_value", (index,), {"dim": d, "value": given.item() if hasattr(given, "item") else given}
    raise TypeError(f"{fn}(): argument 'src' must be Tensor or Number, not {type(given).__name__}")


def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    name, others, attrs = _scatter_op("scatter", input, dim, index, src, value, reduce)
    return apply(name, input, *others, **attrs)


def scatter_(input, dim, index, src=None, *, value=None, reduce=None):
    name, others, attrs = _scatter_op("scatter_", input, dim, index, src, value, reduce)
    return input._inplace(name, *others, **attrs)


def _scatter_add_args(fn, input, dim, index, src):
    if not isinstance(src, Tensor):
        raise TypeError(f"{fn}(): argument 'src' (position 3) must be Tensor, not {type(src).__name__}")
    return _scatter_op(fn, input, dim, index, src, None, None)[1:]


def scatter_add(input, dim, index, src):
    others, attrs = _scatter_add_args("scatter_add", input, dim, index, src)
    return apply("scatter_add", input, *others, **attrs)


def scatter_add_(input, dim, index, src):
    others, attrs = _scatter_add_args("scatter_add_", input, dim, index, src)
    return input._inplace("scatter_add", *others, **attrs)


# ---- index_put --------------------------------------------------------------------------------------------

def _index_put_args(fn: str, input, indices, values, accumulate):
    """(values, index tensors, attrs) for input.index_put(indices, values): bool masks become the integer
    coordinates of their True entries; a None entry leaves its dim whole, as PyTorch reads them."""
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"{fn}(): argument 'indices' (position 1) must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    if not isinstance(values, Tensor):
        raise TypeError(f"{fn}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if values.array.dtype != input.array.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_type_word(input)} for the destination and {_type_word(values)} for the source.")
    coords, positions, position = [], [], 0
    for index in indices:
        if index is None:
            position += 1
            continue
        array = index.array if isinstance(index, Tensor) else np.asarray(index)
        if array.dtype == np.bool_ or array.dtype == np.uint8:
            coords += [Tensor(c.astype(np.int64)) for c in np.nonzero(array)]
            positions += range(position, position + array.ndim)
            position += array.ndim
        else:
            coords.append(index if isinstance(index, Tensor) else Tensor(array))
            positions.append(position)
            position += 1
    if position > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got {position})")
    if not coords:
        raise UnsupportedError(f"{fn} without an index tensor is not supported by Dagscope")
    _check_values_fit(input, values, coords, tuple(positions))
    return values, coords, {"positions": tuple(positions), "accumulate": bool(accumulate)}


def _check_values_fit(input, values, coords, positions) -> None:
    """PyTorch's error for values that do not broadcast to the indexed places (numpy's would name numpy)."""
    from engine.ops.index import _check_bounds, index_shape
    _check_bounds(input.array.shape, [c.array for c in coords], positions)
    target = index_shape(input.array.shape, [c.array.shape for c in coords], positions)
    try:
        np.broadcast_shapes(values.array.shape, target)
        fits = np.broadcast_shapes(values.array.shape, target) == tuple(target)
    except ValueError:
        fits = False
    if not fits:
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(values.array.shape)} cannot be broadcast "
                           f"to indexing result of shape {list(target)}")


def index_put(input, indices, values, accumulate: bool = False):
    values, coords, attrs = _index_put_args("index_put", input, indices, values, accumulate)
    return apply("index_put", input, values, *coords, **attrs)


def index_put_(input, indices, values, accumulate: bool = False):
    values, coords, attrs = _index_put_args("index_put_", input, indices, values, accumulate)
    if autograd._GradMode.enabled and (input.requires_grad or values.requires_grad):
        input._check_inplace()
        return input._become(apply("index_put", input._alias(), values, *coords, **attrs))
    input.array[...] = OPS["index_put"].run(input.array, values.array, *(c.array for c in coords), **attrs)
    input._version += 1
    return input
