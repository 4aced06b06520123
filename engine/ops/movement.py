"""Movement ops: reshape, expand, permute, transpose. No arithmetic, only index maps."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import MOVEMENT, OpDef, Spec, register


def _resolve_shape(shape, numel: int) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1], dtype=np.int64))
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if int(np.prod(shape, dtype=np.int64)) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


register(OpDef(
    "reshape", MOVEMENT, lambda x, shape: np.reshape(x, _resolve_shape(shape, x.size)),
    lambda x, shape: Spec(_resolve_shape(shape, _numel(x.shape)), x.dtype),
    lambda F, g, x, out, shape: (F.reshape(g, shape=tuple(x.shape)),),
    "ViewBackward0", "x viewed with a new shape", "grad_x = grad reshaped back", attrs=("shape",)))


def _expand_shape(in_shape, shape) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    lead = len(shape) - len(in_shape)
    if lead < 0:
        raise RuntimeError(f"expand: the number of sizes provided ({len(shape)}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({len(in_shape)})")
    out = []
    for i, s in enumerate(shape):
        src = in_shape[i - lead] if i >= lead else None
        out.append(src if s == -1 and src is not None else s)
        if src is not None and src != 1 and src != out[-1]:
            raise RuntimeError(f"The expanded size of the tensor ({out[-1]}) must match the existing "
                               f"size ({src}) at non-singleton dimension {i}")
    return tuple(out)


register(OpDef(
    "expand", MOVEMENT, lambda x, shape: np.broadcast_to(x, _expand_shape(x.shape, shape)),
    lambda x, shape: Spec(_expand_shape(x.shape, shape), x.dtype),
    lambda F, g, x, out, shape: (F.sum_to_size(g, shape=tuple(x.shape)),),
    "ExpandBackward0", "x broadcast to `shape`", "grad_x = grad summed over the broadcast dims",
    attrs=("shape",)))

register(OpDef(
    "permute", MOVEMENT, lambda x, dims: np.transpose(x, dims),
    lambda x, dims: Spec(tuple(x.shape[d] for d in dims), x.dtype),
    lambda F, g, x, out, dims: (F.permute(g, dims=tuple(int(i) for i in np.argsort(dims))),),
    "PermuteBackward0", "x with its dims reordered", "grad_x = grad permuted back", attrs=("dims",)))


def _transpose_dims(ndim, dim0, dim1):
    dims = list(range(ndim))
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return tuple(dims)


register(OpDef(
    "transpose", MOVEMENT, lambda x, dim0, dim1: np.swapaxes(x, dim0, dim1),
    lambda x, dim0, dim1: Spec(tuple(x.shape[d] for d in _transpose_dims(len(x.shape), dim0, dim1)), x.dtype),
    lambda F, g, x, out, dim0, dim1: (F.transpose(g, dim0=dim0, dim1=dim1),),
    lambda x, dim0, dim1: "TBackward0" if len(x.shape) == 2 else "TransposeBackward0",
    "x with dims dim0 and dim1 swapped", "grad_x = grad with the same dims swapped back",
    attrs=("dim0", "dim1")))
