"""Movement ops: reshape, expand, permute, transpose. No arithmetic, only index maps."""
from __future__ import annotations

import math

import numpy as np

from engine.ops.dtypes import promote
from engine.ops.registry import INDEX, MOVEMENT, OpDef, Spec, register
from engine.ops.shapes import normalize_dims


def _resolve_shape(shape, numel: int) -> tuple[int, ...]:
    shape = tuple(int(s) for s in shape)
    if shape.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    # math.prod rather than np.prod: a product of a few Python ints, without numpy's array round trip
    if -1 in shape:
        known = math.prod(s for s in shape if s != -1)
        if known == 0 and numel == 0:
            raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {list(shape)} because the "
                               "unspecified dimension size -1 can be any value and is ambiguous")
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = tuple(numel // known if s == -1 else s for s in shape)
    if math.prod(shape) != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return shape


def _numel(shape) -> int:
    return int(np.prod(shape, dtype=np.int64))


def _reshape_name(x, shape, fn=None) -> str:
    """x.view is always ViewBackward0. PyTorch's x.reshape (fn="reshape") is a view of a contiguous x
    (ViewBackward0), an alias with new strides of a non-contiguous x whose memory can take the new shape
    (ReshapeAliasBackward0), else a copy that is then viewed (UnsafeViewBackward0). A caller that does
    not say which ran gets the view's name wherever the memory allows one. An IR value has no memory
    layout yet: it is named as the view."""
    array = getattr(x, "array", None)
    if fn == "view" or array is None or array.flags.c_contiguous:
        return "ViewBackward0"
    try:
        np.reshape(array, _resolve_shape(shape, array.size), copy=False)
    except ValueError:               # numpy would have to copy, and so does PyTorch
        return "UnsafeViewBackward0"
    return "ReshapeAliasBackward0" if fn == "reshape" else "ViewBackward0"


register(OpDef(
    "reshape", MOVEMENT, lambda x, shape, fn=None: np.reshape(x, _resolve_shape(shape, x.size)),
    lambda x, shape, fn=None: Spec(_resolve_shape(shape, _numel(x.shape)), x.dtype),
    lambda F, g, x, out, shape, fn=None: (F.reshape(g, shape=tuple(x.shape)),),
    _reshape_name, "x viewed with a new shape", "grad_x = grad reshaped back", attrs=("shape", "fn"), saves=(),
    view=True))


_TENSOR_TYPES = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor", "int64": "LongTensor",
                 "int32": "IntTensor", "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
                 "bool": "BoolTensor"}


def _expand_shape(in_shape, shape, dtype) -> tuple[int, ...]:
    """The shape x.expand(*shape) has, or PyTorch's error (-1 keeps an existing dim's size)."""
    shape, in_shape = tuple(int(s) for s in shape), tuple(in_shape)
    lead = len(shape) - len(in_shape)
    if lead < 0:
        kind = _TENSOR_TYPES.get(np.dtype(dtype).name, "Tensor")
        raise RuntimeError(f"expand(torch.{kind}{{{list(in_shape)}}}, size={list(shape)}): the number of sizes "
                           f"provided ({len(shape)}) must be greater or equal to the number of dimensions in the "
                           f"tensor ({len(in_shape)})")
    out = []
    for i, s in enumerate(shape):
        if i < lead and s == -1:
            raise RuntimeError(f"The expanded size of the tensor (-1) isn't allowed in a leading, non-existing "
                               f"dimension {i}")
        src = in_shape[i - lead] if i >= lead else None
        out.append(src if s == -1 and src is not None else s)
        if src is not None and src != 1 and src != out[-1]:
            raise RuntimeError(f"The expanded size of the tensor ({out[-1]}) must match the existing size ({src}) at "
                               f"non-singleton dimension {i}.  Target sizes: {list(shape)}.  Tensor sizes: "
                               f"{list(in_shape)}")
    return tuple(out)


register(OpDef(
    "expand", MOVEMENT, lambda x, shape: np.broadcast_to(x, _expand_shape(x.shape, shape, x.dtype)),
    lambda x, shape: Spec(_expand_shape(x.shape, shape, x.dtype), x.dtype),
    lambda F, g, x, out, shape: (F.sum_to_size(g, shape=tuple(x.shape)),),
    "ExpandBackward0", "x broadcast to `shape`", "grad_x = grad summed over the broadcast dims",
    attrs=("shape",), saves=(), view=True))

register(OpDef(
    "permute", MOVEMENT, lambda x, dims: np.transpose(x, dims),
    lambda x, dims: Spec(tuple(x.shape[d] for d in dims), x.dtype),
    lambda F, g, x, out, dims: (F.permute(g, dims=tuple(int(i) for i in np.argsort(dims))),),
    "PermuteBackward0", "x with its dims reordered", "grad_x = grad permuted back", attrs=("dims",), saves=(),
    view=True))


def _transpose_dims(ndim, dim0, dim1):
    dims = list(range(ndim))
    dims[dim0], dims[dim1] = dims[dim1], dims[dim0]
    return tuple(dims)


def _transpose_name(x, dim0, dim1, fn=None) -> str:
    """PyTorch names x.t() TBackward0 and x.transpose(d0, d1) (x.mT, x.swapaxes) TransposeBackward0, whatever
    the rank: the caller says which ran through `fn` ("t" or "transpose"; saying nothing is transpose)."""
    return _TRANSPOSE_NAMES[fn]


_TRANSPOSE_NAMES = {None: "TransposeBackward0", "t": "TBackward0", "transpose": "TransposeBackward0",
                    "swapaxes": "TransposeBackward0", "mT": "TransposeBackward0",
                    "transpose_": "TransposeBackward1"}   # in place (a batch_first RNN/GRU's output)


register(OpDef(
    "transpose", MOVEMENT, lambda x, dim0, dim1, fn=None: x.swapaxes(dim0, dim1),   # the method: no Python wrapper
    lambda x, dim0, dim1, fn=None: Spec(tuple(x.shape[d] for d in _transpose_dims(len(x.shape), dim0, dim1)),
                                        x.dtype),
    # (t's backward is grad.t(), transpose's grad.transpose(d0, d1): the same fn names the derivative)
    lambda F, g, x, out, dim0, dim1, fn=None: (F.transpose(g, dim0=dim0, dim1=dim1, **({"fn": fn} if fn else {})),),
    _transpose_name, "x with dims dim0 and dim1 swapped", "grad_x = grad with the same dims swapped back",
    attrs=("dim0", "dim1", "fn"), saves=(),
    numpy_vjp=lambda needs, g, x, out, dim0, dim1, fn=None: (g.swapaxes(dim0, dim1),) if type(g) is np.ndarray
    else None, view=True))


# ---- squeeze / unsqueeze ------------------------------------------------------------------------

def _squeeze_shape(shape, dim) -> tuple[int, ...]:
    axes = range(len(shape)) if dim is None else normalize_dims(dim, len(shape))
    return tuple(s for i, s in enumerate(shape) if not (i in axes and s == 1))


def _squeeze_name(x, dim=None) -> str:
    return "SqueezeBackward0" if dim is None else ("SqueezeBackward1" if isinstance(dim, int) else "SqueezeBackward2")


def _squeeze_vjp(F, g, x, out, dim=None):
    # PyTorch's unsqueeze_to: one unsqueeze per removed dim, in order (UnsqueezeBackward0 nodes)
    axes = range(len(x.shape)) if dim is None else normalize_dims(dim, len(x.shape))
    for axis in sorted(a for a in axes if x.shape[a] == 1):
        g = F.unsqueeze(g, dim=axis)
    return (g,)


register(OpDef(
    "squeeze", MOVEMENT, lambda x, dim=None: x.reshape(_squeeze_shape(x.shape, dim)),
    lambda x, dim=None: Spec(_squeeze_shape(x.shape, dim), x.dtype),
    _squeeze_vjp, _squeeze_name, "x without its size-1 dims", "grad_x = grad with the size-1 dims put back",
    attrs=("dim",), saves=(), view=True))


def _unsqueeze_shape(shape, dim: int) -> tuple[int, ...]:
    n = len(shape) + 1
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    dim %= n
    return tuple(shape[:dim]) + (1,) + tuple(shape[dim:])


register(OpDef(
    "unsqueeze", MOVEMENT, lambda x, dim: x.reshape(_unsqueeze_shape(x.shape, dim)),
    lambda x, dim: Spec(_unsqueeze_shape(x.shape, dim), x.dtype),
    lambda F, g, x, out, dim: (F.squeeze(g, dim=dim),),      # (grad.squeeze(dim): SqueezeBackward1)
    "UnsqueezeBackward0", "x with a size-1 dim inserted at `dim`", "grad_x = grad with that dim removed",
    attrs=("dim",), saves=(), view=True))


# ---- cat / stack ------------------------------------------------------------------------------------

def _skipped(x) -> bool:
    """PyTorch's legacy rule: a 1-D tensor of size 0 joins anything (it is left out of cat)."""
    return tuple(x.shape) == (0,)


def _cat_infer(*xs, dim=0):
    if not xs:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    joined = [(k, x) for k, x in enumerate(xs) if not _skipped(x)]
    dtype = promote(*(x.dtype for x in xs))
    if not joined:
        return Spec((0,), dtype)
    ref = tuple(joined[0][1].shape)
    d = normalize_dims(dim, len(ref))[0]
    for k, x in joined[1:]:
        if len(x.shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} and {len(x.shape)}")
        for i, (want, got) in enumerate(zip(ref, x.shape)):
            if i != d and want != got:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size {want} but "
                                   f"got size {got} for tensor number {k} in the list.")
    shape = ref[:d] + (sum(x.shape[d] for _, x in joined),) + ref[d + 1:]
    return Spec(shape, dtype)


def _cat_forward(*xs, dim=0):
    spec = _cat_infer(*xs, dim=dim)
    joined = [x.astype(spec.dtype, copy=False) for x in xs if not _skipped(x)]
    return np.concatenate(joined, axis=dim) if joined else np.zeros((0,), spec.dtype)


def _cat_vjp(F, g, *inputs_and_out, dim=0):
    xs = inputs_and_out[:-1]
    joined = [x for x in xs if not _skipped(x)]
    if not joined:
        return tuple(g for _ in xs)
    d = normalize_dims(dim, len(joined[0].shape))[0]
    grads, start = [], 0
    for x in xs:
        if _skipped(x):        # nothing of it is in the output: an empty gradient of its shape
            grads.append(F.reshape(F.slice(g, dim=d, start=start, end=start, step=1), shape=(0,)))
            continue
        stop = start + x.shape[d]
        grads.append(F.slice(g, dim=d, start=start, end=stop, step=1))
        start = stop
    return tuple(grads)


register(OpDef("cat", MOVEMENT, _cat_forward, _cat_infer, _cat_vjp, "CatBackward0",
               "inputs joined along `dim`", "grad_i = the slice of grad that input i filled",
               attrs=("dim",), saves=(), copies=True, writes_out=True))


def _stack_infer(*xs, dim=0):
    if not xs:
        raise RuntimeError("stack expects a non-empty TensorList")
    for i, x in enumerate(xs[1:], 1):
        if tuple(x.shape) != tuple(xs[0].shape):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(xs[0].shape)} "
                               f"at entry 0 and {list(x.shape)} at entry {i}")
    shape = list(_unsqueeze_shape(tuple(xs[0].shape), dim))
    shape[dim % len(shape)] = len(xs)
    return Spec(tuple(shape), promote(*(x.dtype for x in xs)))


def _stack_forward(*xs, dim=0):
    spec = _stack_infer(*xs, dim=dim)
    return np.stack([x.astype(spec.dtype, copy=False) for x in xs], axis=dim % len(spec.shape))


def _stack_vjp(F, g, *inputs_and_out, dim=0):
    xs = inputs_and_out[:-1]
    d = dim % (len(xs[0].shape) + 1)
    return tuple(F.select(g, dim=d, index=i) for i in range(len(xs)))


register(OpDef("stack", MOVEMENT, _stack_forward, _stack_infer, _stack_vjp, "StackBackward0",
               "inputs stacked along a new dim", "grad_i = grad selected at position i of that dim",
               attrs=("dim",), saves=(), copies=True, writes_out=True))


# ---- slice / select (what basic indexing decomposes into, as in PyTorch) -----------------------------

def slice_bounds(size: int, start, end, step) -> tuple[int, int, int]:
    """Python-style clamped bounds; PyTorch rejects non-positive steps."""
    if step is None:
        step = 1
    if step <= 0:
        raise ValueError("step must be greater than zero")
    start, end, _ = slice(start, end, step).indices(size)
    return start, max(end, start), step


def _slice_key(ndim, dim, start, end, step):
    return (slice(None),) * dim + (slice(start, end, step),)


def _slice_shape(shape, dim, start, end, step):
    s, e, st = slice_bounds(shape[dim], start, end, step)
    return tuple(shape[:dim]) + (len(range(s, e, st)),) + tuple(shape[dim + 1:])


register(OpDef(
    "slice", MOVEMENT,
    lambda x, dim, start, end, step=1, fn=None: x[_slice_key(x.ndim, dim, *slice_bounds(x.shape[dim], start, end,
                                                                                       step))],
    lambda x, dim, start, end, step=1, fn=None: Spec(_slice_shape(x.shape, dim, start, end, step), x.dtype),
    lambda F, g, x, out, dim, start, end, step=1, fn=None: (
        F.slice_backward(g, shape=tuple(x.shape), dim=dim, start=start, end=end, step=step),),
    # split/chunk's pieces are one PyTorch node for all of them; here each piece is the slice it
    # equals, named after the function that cut it (fn="split" or "split_with_sizes")
    lambda x, dim, start, end, step=1, fn=None: _SPLIT_NODE_NAMES.get(fn, "SliceBackward0"),
    "x[start:end:step] along `dim`", "grad_x = zeros with grad placed in the slice",
    attrs=("dim", "start", "end", "step", "fn"), saves=(), view=True))
_SPLIT_NODE_NAMES = {"split": "SplitBackward0", "split_with_sizes": "SplitWithSizesBackward0"}


def _slice_backward_forward(g, shape, dim, start, end, step=1):
    out = np.zeros(shape, dtype=g.dtype)
    out[_slice_key(len(shape), dim, *slice_bounds(shape[dim], start, end, step))] = g
    return out


register(OpDef(
    "slice_backward", INDEX, _slice_backward_forward,
    lambda g, shape, dim, start, end, step=1: Spec(tuple(shape), g.dtype),
    lambda F, gg, g, out, shape, dim, start, end, step=1: (
        F.slice(gg, dim=dim, start=start, end=end, step=step),),
    "SliceBackwardBackward0", "zeros of `shape` with g placed at [start:end:step] along `dim`",
    "grad_g = the same slice of grad", attrs=("shape", "dim", "start", "end", "step"), saves=()))


def _select_index(size, dim, index):
    if not -size <= index < size:
        raise IndexError(f"index {index} is out of bounds for dimension {dim} with size {size}")
    return index % size


register(OpDef(
    "select", MOVEMENT,
    # the trailing Ellipsis keeps a 0-d result a view of x (x[i] of a 1-D array is a copied scalar):
    # a selected element shares its tensor's memory, as PyTorch's select does
    lambda x, dim, index, fn=None: x[(slice(None),) * dim + (_select_index(x.shape[dim], dim, index), Ellipsis)],
    lambda x, dim, index, fn=None: Spec(tuple(x.shape[:dim]) + tuple(x.shape[dim + 1:]), x.dtype),
    lambda F, g, x, out, dim, index, fn=None: (F.select_backward(g, shape=tuple(x.shape), dim=dim, index=index),),
    # x.unbind(dim) is one PyTorch node for all its outputs (UnbindBackward0); here each output is the
    # select it equals, named after the function its caller ran (fn="unbind")
    lambda x, dim, index, fn=None: "UnbindBackward0" if fn == "unbind" else "SelectBackward0",
    "x[index] along `dim` (that dim removed)", "grad_x = zeros with grad placed at index",
    attrs=("dim", "index", "fn"), saves=(), view=True))


def _select_backward_forward(g, shape, dim, index):
    out = np.zeros(shape, dtype=g.dtype)
    out[(slice(None),) * dim + (index,)] = g
    return out


register(OpDef(
    "select_backward", INDEX, _select_backward_forward,
    lambda g, shape, dim, index: Spec(tuple(shape), g.dtype),
    lambda F, gg, g, out, shape, dim, index: (F.select(gg, dim=dim, index=index),),
    "SelectBackwardBackward0", "zeros of `shape` with g placed at `index` along `dim`",
    "grad_g = grad selected at the same index", attrs=("shape", "dim", "index"), saves=()))


# ---- flip / roll (copies, as PyTorch's: neither is a view there) ----------------------------------

def _flip_dims(ndim: int, dims) -> tuple[int, ...]:
    dims = (dims,) if isinstance(dims, int) else tuple(dims)
    out = normalize_dims(dims, ndim) if dims else ()
    if len(out) != len(dims):
        raise RuntimeError(f"dim {dims[0]} appears multiple times in the list of dims")
    return out


def _flip_forward(x, dims):
    return np.flip(x, _flip_dims(x.ndim, dims)).copy() if x.ndim else x.copy()


register(OpDef(
    "flip", MOVEMENT, _flip_forward, lambda x, dims: Spec(tuple(x.shape), x.dtype),
    lambda F, g, x, out, dims: (F.flip(g, dims=dims),), "FlipBackward0",
    "x reversed along `dims`", "grad_x = grad reversed along the same dims",
    attrs=("dims",), saves=(), copies=True))


def _roll_forward(x, shifts, dims=None):
    if dims is None or dims == ():
        return np.roll(x, shifts[0] if isinstance(shifts, (tuple, list)) else shifts)
    return np.roll(x, shifts, axis=dims)


def _negated(shifts):
    return tuple(-s for s in shifts) if isinstance(shifts, (tuple, list)) else -shifts


register(OpDef(
    "roll", MOVEMENT, _roll_forward, lambda x, shifts, dims=None: Spec(tuple(x.shape), x.dtype),
    lambda F, g, x, out, shifts, dims=None: (F.roll(g, shifts=_negated(shifts), dims=dims),), "RollBackward0",
    "x shifted cyclically by `shifts` along `dims` (the flattened x without dims)",
    "grad_x = grad shifted back by -shifts", attrs=("shifts", "dims"), saves=(), copies=True))
