"""Indexing: x[key] and x[key] = v, gather, index_select, tril/triu, sort/argsort/topk, and the
scatter and index_put family."""
from __future__ import annotations

import builtins
import numbers

import numpy as np

from engine import autograd
from engine.errors import UnsupportedError
from engine.functional._common import _dim, _named, _type_word
from engine.ops import OPS
from engine.ops.index import _check_bounds, index_shape
from engine.ops.movement import slice_bounds
from engine.tensor import Tensor, apply


def tril(input, diagonal: int = 0):
    return apply("tril", input, diagonal=int(diagonal))


def triu(input, diagonal: int = 0):
    return apply("triu", input, diagonal=int(diagonal))


def gather(input, dim: int, index, *, sparse_grad: bool = False):
    return apply("gather", input, index, dim=_dim(dim, input.ndim))


_SortResult, _TopkResult = _named("sort"), _named("topk")


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    return apply("argsort", input, dim=_dim(dim, input.ndim), descending=bool(descending))


def sort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """(values, indices): argsort's indices, and the values read at them by the sort op (SortBackward0)."""
    if input.ndim == 0:
        return _SortResult(input, Tensor(np.zeros((), np.int64)))
    d = _dim(dim, input.ndim)
    indices = argsort(input, d, descending)
    return _SortResult(apply("sort", input, indices, dim=d), indices)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    d = _dim(dim, input.ndim)
    if not 0 <= k <= input.array.shape[d]:
        raise RuntimeError("selected index k out of range")
    indices = apply("slice", argsort(input, d, descending=largest), dim=d, start=0, end=k, step=1)
    return _TopkResult(apply("topk", input, indices, dim=d), indices)


_CummaxResult, _CumminResult = _named("cummax"), _named("cummin")
_KthvalueResult, _MedianResult, _ModeResult = _named("kthvalue"), _named("median"), _named("mode")


def _cumulative(kind: str, result, input, dim):
    """(values, indices) of cummax/cummin: the index op picks where the extreme so far is, the value
    op reads x there (CummaxBackward0 / CumminBackward0)."""
    d = _dim(dim, input.ndim) if input.ndim else 0
    indices = apply(f"{kind}_indices", input, dim=d)
    return result(apply(kind, input, indices, dim=d), indices)


def cummax(input, dim: int):
    """(values, indices): the largest value so far along `dim` and where it is."""
    return _cumulative("cummax", _CummaxResult, input, dim)


def cummin(input, dim: int):
    return _cumulative("cummin", _CumminResult, input, dim)


def _selected(index_op: str, value_op: str, result, input, dim, keepdim, **attrs):
    """(values, indices) of a one-per-row selection along `dim`: the index op chooses, the value op
    reads x there (so the gradient goes to that one element, as PyTorch's does)."""
    d = _dim(dim, input.ndim) if input.ndim else 0
    indices = apply(index_op, input, dim=d, keepdim=bool(keepdim), **attrs)
    return result(apply(value_op, input, indices, dim=d, keepdim=bool(keepdim)), indices)


def kthvalue(input, k: int, dim: int = -1, keepdim: bool = False):
    size = input.array.shape[_dim(dim, input.ndim)] if input.ndim else 1
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {dim}")
    return _selected("kthvalue_indices", "kthvalue", _KthvalueResult, input, dim, keepdim, k=int(k))


def median(input, dim=None, keepdim: bool = False):
    """median(x): the lower median of every element (MedianBackward0); median(x, dim): (values,
    indices) along `dim` (MedianBackward1)."""
    if dim is None:
        return apply("median", input)
    return _selected("median_indices", "median_dim", _MedianResult, input, dim, keepdim)


def mode(input, dim: int = -1, keepdim: bool = False):
    return _selected("mode_indices", "mode", _ModeResult, input, dim, keepdim)


def index_select(input, dim: int, index):
    d = _dim(dim, input.ndim)
    return apply("index", input, index, positions=(d,), fn="index_select")


def _key_tuple(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, (list, np.ndarray)) and not isinstance(k, Tensor):
            arr = np.asarray(k)
            k = Tensor(arr.astype(np.int64) if arr.dtype.kind in "iu" or arr.size == 0 else arr)
        elif isinstance(k, Tensor) and k.array.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(k, bool):
            raise UnsupportedError("indexing with a Python bool is not supported by Dagscope")
        elif isinstance(k, np.integer):
            k = int(k)
        elif not isinstance(k, (int, slice, type(None), type(Ellipsis), Tensor)):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices")
        out.append(k)
    consumed = builtins.sum(k.ndim if isinstance(k, Tensor) and k.array.dtype == np.bool_ else 1
                            for k in out if k is not None and k is not Ellipsis)
    if builtins.sum(k is Ellipsis for k in out) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return tuple(_FILL if k is Ellipsis else k for k in out), consumed


_FILL = object()      # where the ellipsis stood: filled with full slices once the tensor's ndim is known


def getitem(x: Tensor, key) -> Tensor:
    """x[key] as PyTorch does it: basic parts become select/slice/unsqueeze ops applied left to right,
    integer and boolean tensors one `index` op at the end (IndexBackward0)."""
    parts, consumed = _key_tuple(key)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    expanded = []
    for p in parts:
        if p is _FILL:
            expanded.extend([slice(None)] * (x.ndim - consumed))
        else:
            expanded.append(p)
    out, dim = x, 0
    tensors, positions = [], []
    for p in expanded:
        if p is None:
            out = apply("unsqueeze", out, dim=dim)
            dim += 1
        elif isinstance(p, int):
            out = apply("select", out, dim=dim, index=_check_index(p, out.array.shape[dim], dim))
        elif isinstance(p, slice):
            size = out.array.shape[dim]
            start, stop, step = slice_bounds(size, p.start, p.stop, p.step)
            if not (start == 0 and stop == size and step == 1):   # a full slice is no op (as PyTorch)
                out = apply("slice", out, dim=dim, start=start, end=stop, step=step)
            dim += 1
        elif p.array.dtype == np.bool_:
            mask = p.array
            shape = out.array.shape[dim:dim + mask.ndim]
            if mask.shape != shape:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {dim} does not match the "
                                 f"shape of the indexed tensor {list(out.array.shape)} at index {dim}")
            for axis_index in np.nonzero(mask) if mask.ndim else (np.zeros(int(mask), np.int64),):
                tensors.append(Tensor(axis_index.astype(np.int64)))
                positions.append(dim)
                dim += 1
            if mask.ndim == 0:     # x[True-tensor]: a new leading dim of size 1 (or 0)
                out = apply("unsqueeze", out, dim=dim - 1)
        else:
            tensors.append(p)
            positions.append(dim)
            dim += 1
    if tensors:
        out = apply("index", out, *tensors, positions=tuple(positions))
    elif out is x:   # x[:] / x[...]: PyTorch returns a new view (an alias) of x
        out = apply("slice", x, dim=0, start=0, end=x.array.shape[0], step=1) if x.ndim else apply("clone", x)
    return out


def _check_index(i: int, size: int, dim: int) -> int:
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return i % size


def numpy_key(key):
    """The same key with Tensors replaced by their arrays (for direct numpy assignment)."""
    parts = key if isinstance(key, tuple) else (key,)
    out = tuple(p.array if isinstance(p, Tensor) else p for p in parts)
    return out if isinstance(key, tuple) else out[0]


def setitem(x: Tensor, key, value) -> None:
    """x[key] = value. Without a gradient to track, numpy assignment in place (views see it). With
    one, an index_put op whose node becomes x's grad_fn (PyTorch's CopySlices)."""
    needs_grad = autograd._GradMode.enabled and (x.requires_grad or
                                                 (isinstance(value, Tensor) and value.requires_grad))
    if isinstance(value, Tensor):
        value = _value_that_fits(x, key, value)
    if not needs_grad:
        x.array[numpy_key(key)] = value.array if isinstance(value, Tensor) else value
        x._version += 1
        return
    if isinstance(value, Tensor) and _is_the_view(x, key, value):
        # `x[key] *= 2` ends with x[key] = (that view, changed in place): the change already went
        # into x (Tensor._write_through), and copying a view onto itself changes nothing
        return
    x._check_inplace()
    flat = np.arange(x.array.size, dtype=np.int64).reshape(x.array.shape)[numpy_key(key)]
    coords = [Tensor(c) for c in np.unravel_index(flat, x.array.shape)]
    out = apply("index_put", x._alias(), value, *coords, positions=tuple(range(x.ndim)))
    x._become(out, None if _writes_x_itself(key) else "CopySlices")


def _is_the_view(x: Tensor, key, value: Tensor) -> bool:
    """Whether `value` is the very view x[key] (the same memory, shape and strides)."""
    if value.array.base is None or not np.may_share_memory(value.array, x.array):
        return False
    parts = numpy_key(key)
    parts = parts if isinstance(parts, tuple) else (parts,)
    if not any(p is Ellipsis for p in parts):
        parts += (Ellipsis,)                   # so that x[i] of a 1-D array is a 0-d view, not a scalar
    target = x.array[parts]
    return (target.shape == value.array.shape and target.strides == value.array.strides
            and target.__array_interface__["data"][0] == value.array.__array_interface__["data"][0])


def _value_that_fits(x: Tensor, key, value: Tensor) -> Tensor:
    """The value without its leading 1-dims (as PyTorch drops them), or PyTorch's error for a value that
    does not broadcast to x[key]: numpy's would name numpy's rules, or let a mask assignment through."""
    target = np.lib.stride_tricks.as_strided(np.zeros(1, np.bool_), x.array.shape, (0,) * x.ndim)
    target = target[numpy_key(key)].shape          # (a zero-stride stand-in: no copy of x)
    shape = value.array.shape
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    core = shape[start:]
    if len(core) <= len(target) and all(c in (1, t) for c, t in zip(reversed(core), reversed(target))):
        return value if start == 0 else value.reshape(core)
    parts, _ = _key_tuple(key)
    if any(isinstance(p, Tensor) and (p.ndim > 0 or p.array.dtype == np.bool_) for p in parts):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}")
    value.reshape(core).expand(*target)            # raises expand's own error, as PyTorch's copy_ does


def _writes_x_itself(key) -> bool:
    """Whether PyTorch runs x[key] = v as index_put_ on x itself (its node IndexPutBackward0): tensor or
    list indices beside only full slices and `...`. A key with an int, None or a partial slice first
    takes a view of x and writes into it, which x records as CopySlices."""
    parts, _ = _key_tuple(key)
    advanced = [p for p in parts if isinstance(p, Tensor) and (p.ndim > 0 or p.array.dtype == np.bool_)]
    basic = [p for p in parts if not any(p is a for a in advanced)]
    return bool(advanced) and all(p is _FILL or (isinstance(p, slice) and p == slice(None)) for p in basic)


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
