"""Index ops: advanced indexing (integer tensors) and index-put, gather, embedding, one_hot,
and the scatter-add ops their gradients are made of (so every vjp is itself registered ops)."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import INDEX, OpDef, Spec, register
from engine.ops.shapes import normalize_dims


# ---- index: x[i0, i1, ...] with integer index tensors at `positions` ------------------------------

def _index_key(indices, positions):
    key = [slice(None)] * (max(positions) + 1)
    for pos, idx in zip(positions, indices):
        key[pos] = idx
    return tuple(key)


def _check_bounds(shape, indices, positions):
    for pos, idx in zip(positions, indices):
        if idx.dtype.kind not in "iu":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        size = shape[pos]
        if idx.size and (idx.max() >= size or idx.min() < -size):
            bad = int(idx.max()) if idx.max() >= size else int(idx.min())
            raise IndexError(f"index {bad} is out of bounds for dimension {pos} with size {size}")


def index_shape(shape, index_shapes, positions) -> tuple[int, ...]:
    """numpy/PyTorch advanced-indexing shape: adjacent index dims are replaced in place, others go first."""
    bshape = tuple(np.broadcast_shapes(*index_shapes))
    rest = [s for i, s in enumerate(shape) if i not in positions]
    ordered = sorted(positions)
    adjacent = ordered == list(range(ordered[0], ordered[-1] + 1))
    if adjacent:
        first = ordered[0]
        before = [s for i, s in enumerate(shape) if i < first]
        after = [s for i, s in enumerate(shape) if i > ordered[-1]]
        return tuple(before) + bshape + tuple(after)
    return bshape + tuple(rest)


def _index_forward(x, *indices, positions, fn=None):
    _check_bounds(x.shape, indices, positions)
    # numpy lays out x[:, [0, 2]] with the indexed dim outermost; PyTorch's result is row-major
    # (its stride() and is_contiguous() show it, and fills in memory order follow it)
    out = x[_index_key(indices, positions)]
    # (np.ascontiguousarray makes a 0-d result 1-d: x[i] of a vector with a 0-d index is 0-d)
    return np.ascontiguousarray(out) if np.ndim(out) else np.asarray(out)


register(OpDef(
    "index", INDEX, _index_forward,
    lambda x, *indices, positions, fn=None: Spec(index_shape(x.shape, [i.shape for i in indices], positions),
                                                 x.dtype),
    lambda F, g, x, *rest, positions, fn=None: (
        F.index_backward(g, *rest[:-1], shape=tuple(x.shape), positions=positions),) + (None,) * (len(rest) - 1),
    # x.index_select(dim, i) is this op named after its caller (fn="index_select"), as PyTorch names it
    lambda x, *indices, positions, fn=None: "IndexSelectBackward0" if fn == "index_select" else "IndexBackward0",
    "x[indices] (integer tensors at `positions`)",
    "grad_x = zeros with grad added at the indexed places (repeats add up)",
    attrs=("positions", "fn"), saves=None))


def _index_backward_forward(g, *indices, shape, positions):
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, _index_key(indices, positions), g)
    return out


register(OpDef(
    "index_backward", INDEX, _index_backward_forward,
    lambda g, *indices, shape, positions: Spec(tuple(shape), g.dtype),
    lambda F, gg, g, *rest, shape, positions: (
        F.index(gg, *rest[:-1], positions=positions),) + (None,) * (len(rest) - 1),
    # PyTorch's index backward is an accumulating _index_put_impl_ (IndexPutImplBackward0).
    "IndexPutImplBackward0", "zeros of `shape` with g added at [indices] (scatter-add)",
    "grad_g = grad[indices]", attrs=("shape", "positions"), saves=None))


def _index_put_forward(x, values, *indices, positions, accumulate=False):
    _check_bounds(x.shape, indices, positions)
    out = x.copy()
    key = _index_key(indices, positions)
    if accumulate:
        np.add.at(out, key, values.astype(x.dtype, copy=False))
    else:
        out[key] = values
    return out


def _index_put_vjp(F, g, x, values, *rest, positions, accumulate=False):
    indices = rest[:-1]
    grad_x = g if accumulate else F.index_put(g, 0.0, *indices, positions=positions)
    grad_values = F.index(g, *indices, positions=positions)
    return (grad_x, grad_values) + (None,) * len(indices)


register(OpDef(
    "index_put", INDEX, _index_put_forward,
    lambda x, values, *indices, positions, accumulate=False: Spec(tuple(x.shape), x.dtype),
    _index_put_vjp, "IndexPutBackward0", "x with x[indices] = values",
    "grad_x = grad with the overwritten places zeroed; grad_values = grad[indices]",
    attrs=("positions", "accumulate"), saves=None))


# ---- gather / scatter-add ------------------------------------------------------------------------------

def _along_key(index, dim):
    """The full index tuple that picks index[i, j, ..] along `dim` and i, j, .. elsewhere."""
    # np.ogrid's grids, built directly (ogrid's own Python machinery costs more than the indexing)
    n = index.ndim
    return tuple(index if i == dim else np.arange(s).reshape((1,) * i + (s,) + (1,) * (n - i - 1))
                 for i, s in enumerate(index.shape))


def _gather_forward(x, index, dim):
    d = normalize_dims(dim, x.ndim)[0]
    if index.dtype not in _GATHER_INDEX_DTYPES:
        raise RuntimeError("gather(): Expected dtype int32/int64 for index")
    if index.ndim != x.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    outside = (index < 0) | (index >= x.shape[d])
    if outside.any():              # PyTorch's gather takes no negative index, and says which index is wrong
        bad = int(index[outside].flat[0])
        raise RuntimeError(f"index {bad} is out of bounds for dimension {d} with size {x.shape[d]}")
    return x[_along_key(index, d)]


_GATHER_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))


register(OpDef(
    "gather", INDEX, _gather_forward,
    lambda x, index, dim: Spec(tuple(index.shape), x.dtype),
    lambda F, g, x, index, out, dim: (F.gather_backward(g, index, dim=dim, shape=tuple(x.shape)), None),
    "GatherBackward0", "out[i][j] = x[i][index[i][j]] (along `dim`)",
    "grad_x = zeros with grad scatter-added back to where it was gathered from",
    attrs=("dim",), saves=(1,)))


def _gather_backward_forward(g, index, dim, shape):
    out = np.zeros(shape, dtype=g.dtype)
    d = normalize_dims(dim, len(shape))[0]
    if index.shape[d] == 1 and g.shape == index.shape:
        # One index per row along `dim`: no place is hit twice, so a plain assignment does what
        # np.add.at does, ~10x faster. `g + 0` is the sum add.at would store (it turns -0.0 into +0.0).
        out[_along_key(index, d)] = g + g.dtype.type(0)
    else:
        np.add.at(out, _along_key(index, d), g)
    return out


register(OpDef(
    "gather_backward", INDEX, _gather_backward_forward,
    lambda g, index, dim, shape: Spec(tuple(shape), g.dtype),
    lambda F, gg, g, index, out, dim, shape: (F.gather(gg, index, dim=dim), None),
    "ScatterAddBackward0", "zeros of `shape` with g scatter-added at index (along `dim`)",
    "grad_g = grad gathered at index", attrs=("dim", "shape"), saves=(1,), library_kernel=True))


# ---- embedding / one_hot ------------------------------------------------------------------------------

def _embedding_forward(indices, weight, padding_idx=None):
    _check_bounds(weight.shape, (indices,), (0,))
    return weight[indices]


def _embedding_vjp(F, g, indices, weight, out, padding_idx=None):
    if padding_idx is not None:   # the padding row never learns
        g = F.where(F.unsqueeze(F.eq(indices, padding_idx % weight.shape[0]), dim=-1), 0.0, g)
    return None, F.index_backward(g, indices, shape=tuple(weight.shape), positions=(0,))


register(OpDef(
    "embedding", INDEX, _embedding_forward,
    lambda indices, weight, padding_idx=None: Spec(tuple(indices.shape) + tuple(weight.shape[1:]), weight.dtype),
    _embedding_vjp, "EmbeddingBackward0", "weight[indices] (a row per index)",
    "grad_weight = grad rows added into the rows they were read from", attrs=("padding_idx",), saves=(0,)))


def _one_hot_forward(indices, num_classes):
    if indices.dtype.kind not in "iu":
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if indices.size and (indices.min() < 0 or indices.max() >= num_classes):
        raise RuntimeError("Class values must be smaller than num_classes.")
    return (indices[..., None] == np.arange(num_classes)).astype(np.int64)


register(OpDef(
    "one_hot", INDEX, _one_hot_forward,
    lambda indices, num_classes: Spec(tuple(indices.shape) + (num_classes,), np.dtype(np.int64)),
    None, "", "out[..., c] = 1 where indices == c", "one_hot has no gradient",
    differentiable=False, attrs=("num_classes",), saves=()))


# ---- tril / triu (attention masks) -------------------------------------------------------------------

for _name, _fn, _keep in (("tril", np.tril, "on and below"), ("triu", np.triu, "on and above")):
    register(OpDef(
        _name, INDEX, lambda x, diagonal=0, _fn=_fn: _fn(x, diagonal),
        lambda x, diagonal=0: Spec(tuple(x.shape), x.dtype),
        lambda F, g, x, out, diagonal=0, _n=_name: (getattr(F, _n)(g, diagonal=diagonal),),
        f"{_name.capitalize()}Backward0", f"x {_keep} the `diagonal`-th diagonal, zeros elsewhere",
        f"grad_x = {_name}(grad)", attrs=("diagonal",), saves=()))


# ---- argsort (sort and topk are a gather at these indices, so their gradient is gather's) -----------

def _argsort_forward(x, dim=-1, descending=False):
    d = normalize_dims(dim, x.ndim)[0] if x.ndim else 0
    if x.ndim == 0:
        return np.zeros((), dtype=np.int64)
    keys = -x if descending and x.dtype.kind != "b" else x
    order = np.argsort(keys, axis=d, kind="stable")
    if descending and x.dtype.kind == "b":
        order = np.flip(np.argsort(x, axis=d, kind="stable"), axis=d)
    return order.astype(np.int64, copy=False)


register(OpDef(
    "argsort", INDEX, _argsort_forward,
    lambda x, dim=-1, descending=False: Spec(tuple(x.shape), np.dtype(np.int64)),
    None, "", "indices that sort x along `dim` (stable)", "indices have no gradient",
    differentiable=False, attrs=("dim", "descending"), saves=()))


# ---- scatter / scatter_add (x.scatter(dim, index, src)) -----------------------------------------------

_SCATTER_INDEX_DTYPES = (np.dtype(np.int64), np.dtype(np.int32))      # (PyTorch 2.13 takes int32 too)


def _check_scatter(fn, x, index, dim, src=None):
    """PyTorch's checks of x.scatter(dim, index, src): an int64 index of x's rank, no larger than x (apart
    from `dim`) nor than src, every entry inside x along `dim`, and src of x's dtype."""
    d = normalize_dims(dim, x.ndim)[0]
    if index.dtype not in _SCATTER_INDEX_DTYPES:
        raise RuntimeError(f"{fn}(): Expected dtype int64 for index")
    if src is not None and src.dtype != x.dtype:
        raise RuntimeError(f"{fn}(): Expected self.dtype to be equal to src.dtype")
    if index.ndim != x.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if src is not None and src.ndim != index.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.ndim == x.ndim and any(i != d and a > b for i, (a, b) in enumerate(zip(index.shape, x.shape))) or (
            src is not None and index.ndim == src.ndim and any(a > b for a, b in zip(index.shape, src.shape))):
        more = f" and to be no larger size than src {list(src.shape)}" if src is not None else ""
        raise RuntimeError(f"Expected index {list(index.shape)} to be no larger than self {list(x.shape)} apart "
                           f"from dimension {d}{more}")
    outside = (index < 0) | (index >= (x.shape[d] if x.ndim else 1))
    if outside.any():
        raise RuntimeError(f"index {int(index[outside].flat[0])} is out of bounds for dimension {d} with size "
                           f"{x.shape[d] if x.ndim else 1}")
    return d


def _src_part(src, index):
    """The corner of src that index reads (src may be larger than index in every dim)."""
    return src[tuple(slice(0, s) for s in index.shape)]


def _scatter_forward(x, index, src, dim):
    d = _check_scatter("scatter", x, index, dim, src)
    out = x.copy()
    if index.size:
        out[_along_key(index, d)] = _src_part(src, index)
    return out


def _scatter_src_grad(F, g, index, src, dim, node):
    """grad_src = grad.gather(dim, index), as eager backward computes it. Where src is larger than index
    PyTorch's backward fails on that gradient's shape, and so does this one."""
    if tuple(index.shape) != tuple(src.shape):
        raise RuntimeError(f"Function {node} returned an invalid gradient at index 1 - got {list(index.shape)} but "
                           f"expected shape compatible with {list(src.shape)}")
    return F.gather(g, index, dim=dim)


def _src_grad_padded(F, g, index, src, dim):
    """grad gathered at index and placed into src's corner, zeros elsewhere: the rule graph autodiff
    reads (it asks every input's gradient, a constant src's too, and drops the unused ones)."""
    picked = F.gather(g, index, dim=dim)
    for axis, (have, want) in enumerate(zip(index.shape, src.shape)):
        if have != want:
            picked = F.slice_backward(picked, shape=tuple(src.shape[:axis + 1]) + tuple(picked.shape[axis + 1:]),
                                      dim=axis, start=0, end=have, step=1)
    return picked


def _scatter_vjp_masked(F, needs, g, x, index, src, out, dim):
    # (only the gradients asked for: src's shape check must not fire when src needs no gradient)
    return (F.scatter_value(g, index, dim=dim, value=0.0) if needs[0] else None, None,
            _scatter_src_grad(F, g, index, src, dim, "ScatterBackward0") if needs[2] else None)


register(OpDef(
    "scatter", INDEX, _scatter_forward,
    lambda x, index, src, dim: Spec(tuple(x.shape), x.dtype),
    lambda F, g, x, index, src, out, dim: (F.scatter_value(g, index, dim=dim, value=0.0), None,
                                           _src_grad_padded(F, g, index, src, dim)),
    "ScatterBackward0", "x with x[.., index[i][j], ..] = src[i][j] along `dim`",
    "grad_x = grad with the overwritten places zeroed; grad_src = grad gathered at index",
    attrs=("dim",), saves=(1, 2), vjp_masked=_scatter_vjp_masked))


def _scatter_value_forward(x, index, dim, value):
    d = _check_scatter("scatter", x, index, dim)
    out = x.copy()
    if index.size:
        out[_along_key(index, d)] = value
    return out


register(OpDef(
    "scatter_value", INDEX, _scatter_value_forward,
    lambda x, index, dim, value: Spec(tuple(x.shape), x.dtype),
    lambda F, g, x, index, out, dim, value: (F.scatter_value(g, index, dim=dim, value=0.0), None),
    "ScatterBackward1", "x with x[.., index[i][j], ..] = value along `dim`",
    "grad_x = grad with the overwritten places zeroed", attrs=("dim", "value"), saves=(1,)))


def _scatter_add_forward(x, index, src, dim):
    d = _check_scatter("scatter_add", x, index, dim, src)
    out = x.copy()
    if index.size:
        np.add.at(out, _along_key(index, d), _src_part(src, index))
    return out


def _scatter_add_vjp_masked(F, needs, g, x, index, src, out, dim):
    return (g if needs[0] else None, None,
            _scatter_src_grad(F, g, index, src, dim, "ScatterAddBackward0") if needs[2] else None)


register(OpDef(
    "scatter_add", INDEX, _scatter_add_forward,
    lambda x, index, src, dim: Spec(tuple(x.shape), x.dtype),
    lambda F, g, x, index, src, out, dim: (g, None, _src_grad_padded(F, g, index, src, dim)),
    "ScatterAddBackward0", "x with src[i][j] added at x[.., index[i][j], ..] along `dim` (repeats add up)",
    "grad_x = grad; grad_src = grad gathered at index", attrs=("dim",), saves=(1, 2),
    vjp_masked=_scatter_add_vjp_masked))
