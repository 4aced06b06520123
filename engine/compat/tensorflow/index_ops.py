"""TensorFlow's gather and scatter ops (tf.gather, tf.gather_nd, tf.scatter_nd, tf.tensor_scatter_nd_*):
lowerings onto the registry's advanced-indexing ops, as in ops.py, so their gradients are the
registry's (index's is a scatter-add, index_put's zeroes the overwritten places).

TensorFlow checks its indices in the kernel: an index outside [0, n) is an InvalidArgumentError, never
numpy's wrap-around of a negative index. Indices known now (eager, or constants in a graph) are checked
here with TensorFlow's message. One difference remains: TF's gradient of a gather is an IndexedSlices
(the rows and their values); here it is the dense tensor it stands for (what tf.convert_to_tensor of it gives).
"""
from __future__ import annotations

import builtins

import numpy as np

from engine.compat.tensorflow import context
from engine.compat.tensorflow.errors import InvalidArgumentError, kernel_error
from engine.compat.tensorflow.graph import GraphTensor
from engine.compat.tensorflow.ops import _operands, _shape_tuple, convert_to_tensor, run_op
from engine.errors import UnsupportedError

_INDEX_DTYPES = ("int16", "int32", "int64")


def _indices(indices, tf_type: str):
    idx = convert_to_tensor(indices)
    if idx.dtype.name not in _INDEX_DTYPES:
        raise InvalidArgumentError(f"Value for attr 'Tindices' of {idx.dtype.name} is not in the list of allowed "
                                   f"values: {', '.join(_INDEX_DTYPES)} [Op:{tf_type}]")
    return idx


def _known(t) -> np.ndarray | None:
    """The values of an index tensor when they are known now (not a TF1 graph's or a trace's input)."""
    if isinstance(t, GraphTensor):
        return None
    tracing = context.state().tracing
    if tracing is not None and tracing.is_symbolic(t):
        return None
    return np.asarray(t.array)


def _columns(F, idx, k: int) -> list:
    """indices[..., 0], ..., indices[..., k-1]: one index tensor per indexed dimension."""
    last = len(idx.shape) - 1
    return [F.select(idx, dim=last, index=j) for j in builtins.range(k)]


# ---- gather --------------------------------------------------------------------------------------------

def gather(params, indices, validate_indices=None, axis=None, batch_dims=0, name=None):
    """`tf.gather`: params' slices along `axis` at `indices` (any shape: it replaces that axis)."""
    x = convert_to_tensor(params)
    idx = _indices(indices, "GatherV2")
    if int(batch_dims) != 0:
        raise UnsupportedError("tf.gather with batch_dims is not supported by Dagscope")
    rank = x.shape.rank
    at = 0 if axis is None else int(axis)
    if not -rank <= at < builtins.max(rank, 1):
        raise InvalidArgumentError(f"Expected axis in the range [{-rank}, {rank}), but got {at} [Op:GatherV2]")
    at %= rank
    values = _known(idx)
    if values is not None and values.size:
        n = x.shape[at]
        outside = np.flatnonzero((values < 0) | (values >= n))
        if outside.size:
            where = ",".join(str(int(i)) for i in np.unravel_index(outside[0], values.shape))
            where = f"[{where}]" if where else ""                 # (a scalar index: `indices = 5`)
            error = kernel_error("GatherV2", f"indices{where} = {values.flat[outside[0]]} is not in [0, {n})")
            tracing = context.state().tracing
            if tracing is None or not n or not tracing.is_symbolic(x):
                raise error
            # In a trace, TensorFlow's kernel fails only if the graph's results need this gather (an
            # unused one is pruned): traced on indices kept in range, it fails when the trace ends if a
            # result depends on it (function.py), and is dropped from the graph if none does.
            idx = convert_to_tensor(np.clip(values, 0, n - 1).astype(values.dtype))
            out = run_op("GatherV2", name or "GatherV2", lambda F, x, i: F.index(x, i, positions=(at,)), [x, idx])
            tracing.fails_if_used(out, error)
            return out
    return run_op("GatherV2", name or "GatherV2", lambda F, x, i: F.index(x, i, positions=(at,)), [x, idx])


def gather_nd(params, indices, batch_dims=0, name=None):
    """`tf.gather_nd`: the last axis of `indices` addresses params' first dimensions; what it does not
    address comes whole (indices [[0, 2]] of a matrix: one element; [[1]]: row 1)."""
    x = convert_to_tensor(params)
    idx = _indices(indices, "GatherNd")
    if int(batch_dims) != 0:
        raise UnsupportedError("tf.gather_nd with batch_dims is not supported by Dagscope")
    k = _depth(x, idx, "GatherNd")
    values = _known(idx)
    if values is not None:
        _check_rows(values, x.shape.as_list(), "does not index into param shape", "GatherNd",
                    ", node name: GatherNd")
    positions = tuple(builtins.range(k))
    return run_op("GatherNd", name or "GatherNd", lambda F, x, i: F.index(x, *_columns(F, i, k), positions=positions),
                  [x, idx])


def _depth(x, idx, tf_type: str) -> int:
    """How many leading dimensions each index addresses (the indices' last axis)."""
    if idx.shape.rank == 0:
        raise InvalidArgumentError(f"indices must be at least a vector [Op:{tf_type}]")
    k = idx.shape[-1]
    if k > x.shape.rank:
        raise InvalidArgumentError(f"index innermost dimension length must be <= params rank; saw: {k} vs. "
                                   f"{x.shape.rank} [Op:{tf_type}]")
    if k == 0:
        raise UnsupportedError(f"{tf_type} with an empty innermost index dimension is not supported by Dagscope")
    return k


def _check_rows(values: np.ndarray, shape: list, says: str, tf_type: str, suffix: str = "") -> None:
    """Every index row inside `shape` (TF's "indices[i] = [..] does not index into shape [..]")."""
    k = values.shape[-1]
    rows = values.reshape(-1, k)
    bad = np.flatnonzero(((rows < 0) | (rows >= np.asarray(shape[:k]))).any(axis=1))
    if bad.size:
        row = ", ".join(str(v) for v in rows[bad[0]])
        raise kernel_error(tf_type, f"indices[{bad[0]}] = [{row}] {says} [{','.join(str(s) for s in shape)}]{suffix}")


# ---- scatter -------------------------------------------------------------------------------------------

def scatter_nd(indices, updates, shape, name=None):
    """`tf.scatter_nd`: zeros of `shape` with `updates` added at `indices` (repeated indices add up)."""
    idx = _indices(indices, "ScatterNd")
    upd = convert_to_tensor(updates)
    target = _shape_tuple(shape)
    k = _scatter_checks(idx, upd, target, "ScatterNd")
    positions = tuple(builtins.range(k))
    return run_op("ScatterNd", name or "ScatterNd",
                  lambda F, u, i: F.index_backward(u, *_columns(F, i, k), shape=target, positions=positions),
                  [upd, idx])


def _scatter_checks(idx, upd, shape: tuple, tf_type: str) -> int:
    if idx.shape.rank == 0:
        raise InvalidArgumentError(f"Indices must be at least a vector [Op:{tf_type}]")
    k = idx.shape[-1]
    if not 0 < k <= len(shape):
        raise InvalidArgumentError(f"Dimensions [0,{k}) of indices[shape={idx.shape.as_list()}] must match "
                                   f"dimensions [0,{k}) of updates[shape={upd.shape.as_list()}] and shape "
                                   f"{list(shape)} [Op:{tf_type}]")
    expected = tuple(idx.shape.as_list()[:-1]) + tuple(shape[k:])
    if tuple(upd.shape.as_list()) != expected:
        raise InvalidArgumentError(f"Dimensions [0,{idx.shape.rank - 1}) of indices[shape={idx.shape.as_list()}] = "
                                   f"{idx.shape.as_list()[:-1]} must match dimensions of updates[shape="
                                   f"{upd.shape.as_list()}] (expected {list(expected)}) [Op:{tf_type}]")
    values = _known(idx)
    if values is not None:
        _check_rows(values, list(shape), "does not index into shape", tf_type)
    return k


def _tensor_scatter(tf_type: str, lower_put):
    def op(tensor, indices, updates, name=None):
        x, upd = _operands(tf_type, [tensor, updates])
        idx = _indices(indices, tf_type)
        k = _scatter_checks(idx, upd, tuple(x.shape.as_list()), tf_type)
        positions = tuple(builtins.range(k))
        return run_op(tf_type, name or tf_type,
                      lambda F, x, u, i: lower_put(F, x, u, _columns(F, i, k), positions), [x, upd, idx])
    return op


def _extreme_put(tf_type: str, pick: str):
    """min/max: each indexed place becomes the extreme of what it held and its update. Written as a
    read, a comparison and a put, it holds for distinct places; several updates of one place would
    keep only the last, so those are refused rather than answered wrongly."""
    scatter = _tensor_scatter(tf_type, lambda F, x, u, cols, positions: F.index_put(
        x, F.where(getattr(F, pick)(u, F.index(x, *cols, positions=positions)), u,
                   F.index(x, *cols, positions=positions)), *cols, positions=positions))

    def op(tensor, indices, updates, name=None):
        idx = _indices(indices, tf_type)
        values = _known(idx)
        if values is None or values.ndim == 0:
            raise UnsupportedError(f"{tf_type} with indices computed in the graph is not supported by Dagscope")
        rows = values.reshape(-1, values.shape[-1])
        if len(np.unique(rows, axis=0)) != len(rows):
            raise UnsupportedError(f"{tf_type} with a repeated index is not supported by Dagscope")
        return scatter(tensor, idx, updates, name)
    return op


tensor_scatter_nd_update = _tensor_scatter(
    "TensorScatterUpdate", lambda F, x, u, cols, positions: F.index_put(x, u, *cols, positions=positions))
tensor_scatter_nd_add = _tensor_scatter(
    "TensorScatterAdd", lambda F, x, u, cols, positions: F.index_put(x, u, *cols, positions=positions,
                                                                     accumulate=True))
tensor_scatter_nd_sub = _tensor_scatter(
    "TensorScatterSub", lambda F, x, u, cols, positions: F.index_put(x, F.neg(u), *cols, positions=positions,
                                                                     accumulate=True))
tensor_scatter_nd_max = _extreme_put("TensorScatterMax", "gt")
tensor_scatter_nd_min = _extreme_put("TensorScatterMin", "lt")

