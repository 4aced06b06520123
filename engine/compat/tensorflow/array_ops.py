"""TensorFlow's array ops: creation (zeros, ones, fill, range ...), shapes (reshape, transpose,
concat ...), basic indexing and `tf.print` — lowerings onto the op registry, as in ops.py."""
from __future__ import annotations

import builtins
import sys

import numpy as np

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow.eager import EagerTensor, infer_array
from engine.compat.tensorflow.errors import InvalidArgumentError, kernel_error
from engine.compat.tensorflow.graph import GraphTensor
from engine.capture.symbolic import TensorRange
from engine.compat.tensorflow.ops import (_axes, _operands, _shape_tuple, _static, cast, constant, convert_to_tensor,
                                          run_op, typed_constant)
from engine.errors import UnsupportedError
from engine.tensor import Tensor as EngineTensor
from engine.tensor import apply

# ---- creation ---------------------------------------------------------------------------------------

def zeros(shape, dtype=dtypes.float32, name="zeros"):
    return constant(np.zeros(_shape_tuple(shape), dtypes.as_dtype(dtype).np), name=name)


def ones(shape, dtype=dtypes.float32, name="ones"):
    return constant(np.ones(_shape_tuple(shape), dtypes.as_dtype(dtype).np), name=name)


def fill(dims, value, name="Fill"):
    arr = infer_array(value)
    return constant(np.full(_shape_tuple(dims), arr, dtype=arr.dtype), name=name)


def eye(num_rows, num_columns=None, dtype=dtypes.float32, name="eye"):
    return constant(np.eye(num_rows, num_columns, dtype=dtypes.as_dtype(dtype).np), name=name)


def range(start, limit=None, delta=1, dtype=None, name="range"):  # noqa: A001 - TensorFlow's name
    if limit is None:
        start, limit = 0, start
    tracing = context.state().tracing
    if tracing is not None and builtins.any(tracing.is_symbolic(_tensor_of(v)) for v in (start, limit, delta)):
        return _loop_range(start, limit, delta, dtype)
    values = [_static(v) for v in (start, limit, delta)]
    is_float = any(np.asarray(v).dtype.kind == "f" for v in values)
    target = dtypes.as_dtype(dtype).np if dtype is not None else (np.float32 if is_float else np.int32)
    return constant(np.arange(*(np.asarray(v).item() for v in values)).astype(target), name=name)


def linspace(start, stop, num, name=None, axis=0):
    """`tf.linspace`, by TensorFlow's formula: delta = (stop - start) / (num - 1), the values between
    start + delta * i, with start and stop themselves at the ends (integers give float64, as
    TensorFlow's division does). start and stop may be tensors of one shape: the new axis is `axis`."""
    start = convert_to_tensor(start)
    stop = convert_to_tensor(stop, dtype=start.dtype)
    n = int(_static(num))
    if n < 0:
        raise InvalidArgumentError(f"Requires num >= 0: {n} [Op:LinSpace]")
    steps = builtins.max(n - 1, 1)
    float_dtype = start.dtype.np if start.dtype.is_floating else np.dtype(np.float64)

    def lower(F, a, b):
        shape = tuple(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)))
        rank = len(shape) + 1
        at = axis % rank
        a, b = (F.to_dtype(F.expand(v, shape=shape), dtype=float_dtype.name) for v in (a, b))
        a, b = F.unsqueeze(a, dim=at), F.unsqueeze(b, dim=at)
        delta = F.div(F.sub(b, a), typed_constant(F, np.asarray(steps, float_dtype)))
        middle_shape = [1] * rank
        middle_shape[at] = builtins.max(n - 2, 0)
        middle = typed_constant(F, np.arange(1, steps, dtype=float_dtype).reshape(middle_shape))
        values = F.cat(a, F.add(a, F.mul(delta, middle)), b, dim=at)
        return F.slice(values, dim=at, start=0, end=n, step=1)
    return run_op("LinSpace", name or "LinSpace", lower, [start, stop])


class LoopRange(TensorRange):
    """`tf.range(n)` in a tf.function where n is computed from the function's inputs: its length is
    known only when the graph runs, so Dagscope's graphs (whose shapes are fixed) cannot hold it as a
    tensor; `for i in tf.range(n):` compiles to a while_loop, as AutoGraph makes it."""

    def __array__(self, dtype=None, copy=None):
        raise UnsupportedError("tf.range(n) with n computed inside the tf.function is supported as the loop of "
                               "`for i in tf.range(n):` only (its length is known only when the graph runs, and "
                               "Dagscope's graphs have fixed shapes)")

    __iter__ = __array__


def _tensor_of(value):
    return value._dagscope_value() if hasattr(value, "_dagscope_value") else value


def _loop_range(start, limit, delta, dtype) -> LoopRange:
    tracing = context.state().tracing
    if tracing.is_symbolic(_tensor_of(delta)):
        raise UnsupportedError("tf.range with a step computed inside the tf.function is not supported by Dagscope "
                               "(the loop needs to know which way it counts); use a Python number")
    step = np.asarray(_static(delta)).item()
    if step == 0:
        raise InvalidArgumentError("Requires delta != 0: 0 [Op:Range]")
    start, limit = convert_to_tensor(_tensor_of(start)), convert_to_tensor(_tensor_of(limit))
    target = dtypes.as_dtype(dtype) if dtype is not None else \
        (limit.dtype if tracing.is_symbolic(limit) else start.dtype)
    start, limit = cast(start, target), cast(limit, target)
    return LoopRange(start, limit, step)


def _like(x, fill_value, dtype, tf_type):
    x = convert_to_tensor(x)
    target = dtypes.as_dtype(dtype) if dtype is not None else x.dtype

    def lower(F, x):
        return F.expand(typed_constant(F, np.asarray(fill_value, target.np)), shape=tuple(x.shape))
    return run_op(tf_type, None, lower, [x])


def zeros_like(input, dtype=None, name=None):  # noqa: A002 - TensorFlow's argument name
    return _like(input, 0, dtype, "zeros_like")


def ones_like(input, dtype=None, name=None):  # noqa: A002
    return _like(input, 1, dtype, "ones_like")


def stop_gradient(input, name=None):  # noqa: A002
    """`tf.stop_gradient`: the same values, as a node no gradient flows back through (a tape sees a
    constant; tf.gradients and a tf.function's backward stop there too)."""
    x = convert_to_tensor(input)
    return run_op("StopGradient", name or "StopGradient", lambda F, x: F.stop_gradient(x), [x])


def identity(input, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    if isinstance(x, GraphTensor):
        return run_op("Identity", name, lambda F, x: x, [x])
    return EagerTensor(x.array) if not x.requires_grad else run_op("Identity", name, lambda F, x: F.clone(x), [x])


# ---- shapes -------------------------------------------------------------------------------------------

def reshape(tensor, shape, name=None):
    x = convert_to_tensor(tensor)
    target = _shape_tuple(shape)
    _check_reshape(x, target)
    return run_op("Reshape", name or "Reshape", lambda F, x: F.reshape(x, shape=target), [x])


def _check_reshape(x, target: tuple) -> None:
    """TF's words for a shape that cannot hold the values (the registry's would be PyTorch's)."""
    if not x.shape.is_fully_defined():
        return
    n = x.shape.num_elements()
    known = int(np.prod([d for d in target if d != -1], dtype=np.int64))
    if list(target).count(-1) > 1:
        message = f"Only one input size may be -1, not both {target.index(-1)} and " \
                  f"{target.index(-1, target.index(-1) + 1)}"
    elif -1 in target and (known == 0 or n % known) or -1 not in target and known != n:
        message = f"Input to reshape is a tensor with {n} values, but the requested shape " + \
                  (f"requires a multiple of {known}" if -1 in target else f"has {known}")
    else:
        return
    if isinstance(x, GraphTensor) or context.state().tracing is not None:
        raise ValueError(f"Cannot reshape a tensor with {n} elements to shape {list(target)}")
    raise kernel_error("Reshape", message)


def transpose(a, perm=None, conjugate=False, name=None):
    x = convert_to_tensor(a)

    def lower(F, x):
        dims = tuple(reversed(builtins.range(len(x.shape)))) if perm is None else _shape_tuple(perm)
        return F.permute(x, dims=tuple(d % builtins.max(len(x.shape), 1) for d in dims))
    return run_op("Transpose", name or "transpose", lower, [x])


def broadcast_to(input, shape, name=None):  # noqa: A002
    """`tf.broadcast_to`: numpy's broadcasting rules; the gradient sums over the broadcast axes."""
    x = convert_to_tensor(input)
    target = _shape_tuple(shape)
    try:
        np.broadcast_shapes(tuple(x.shape.as_list()), target)
        if len(target) < x.shape.rank:
            raise ValueError
    except ValueError:
        raise InvalidArgumentError(f"Unable to broadcast tensor of shape {x.shape.as_list()} to tensor of shape "
                                   f"{list(target)} [Op:BroadcastTo]") from None
    return run_op("BroadcastTo", name or "BroadcastTo", lambda F, x: F.expand(x, shape=target), [x])


def expand_dims(input, axis, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    return run_op("ExpandDims", name, lambda F, x: F.unsqueeze(x, dim=int(axis)), [x])


def squeeze(input, axis=None, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    dims = _axes(axis)
    return run_op("Squeeze", name, lambda F, x: F.squeeze(x, dim=dims), [x])


def concat(values, axis, name="concat"):
    xs = _operands("ConcatV2", list(values))
    return run_op("ConcatV2", name, lambda F, *xs: F.cat(*xs, dim=int(axis)), xs)


def stack(values, axis=0, name="stack"):
    xs = _operands("Pack", list(values))
    return run_op("Pack", name, lambda F, *xs: F.stack(*xs, dim=int(axis)), xs)


def shape(input, out_type=dtypes.int32, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    target = dtypes.as_dtype(out_type).np
    return run_op("Shape", name, lambda F, x: typed_constant(F, np.asarray(x.shape, dtype=target)), [x])


def size(input, out_type=dtypes.int32, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    target = dtypes.as_dtype(out_type).np
    return run_op("Size", name, lambda F, x: typed_constant(F, np.asarray(int(np.prod(x.shape)), target)), [x])


def rank(input, name=None):  # noqa: A002
    x = convert_to_tensor(input)
    return run_op("Rank", name, lambda F, x: typed_constant(F, np.asarray(len(x.shape), np.int32)), [x])


def one_hot(indices, depth, on_value=None, off_value=None, axis=None, dtype=dtypes.float32, name=None):
    if on_value is not None or off_value is not None or axis not in (None, -1):
        raise UnsupportedError("tf.one_hot with on_value/off_value/axis is not supported by Dagscope")
    x = convert_to_tensor(indices)
    target = dtypes.as_dtype(dtype).name
    return run_op("OneHot", name, lambda F, x: F.to_dtype(F.one_hot(F.to_dtype(x, dtype="int64"),
                                                                   num_classes=int(depth)), dtype=target), [x])


# ---- indexing (basic slicing: ints, slices, ..., tf.newaxis) ---------------------------------------

def getitem(tensor, key):
    """Basic slicing; a scalar integer tensor picks one index too (`x[i]` in a `for i in tf.range(n)` loop),
    as a value when it is known now, else as an `index` node of the graph."""
    x = convert_to_tensor(tensor)
    keys, picks = _index_tensors(list(key) if isinstance(key, tuple) else [key])
    for k in keys:
        if isinstance(k, _Pick):
            continue
        if not (k is None or k is Ellipsis or isinstance(k, (int, np.integer, builtins.slice))):
            raise UnsupportedError(f"indexing a tensor with {type(k).__name__} is not supported by Dagscope "
                                   "(only ints, slices, ... and tf.newaxis); use tf.gather for index tensors")
        if isinstance(k, builtins.slice) and k.step is not None and int(k.step) == 0:
            raise InvalidArgumentError("strides[0] must be non-zero [Op:StridedSlice]")

    def lower(F, x, *indices):
        ks = list(keys)
        if Ellipsis in ks:
            at = ks.index(Ellipsis)
            fill = len(x.shape) - (len(ks) - 1 - ks.count(None))
            ks[at:at + 1] = [builtins.slice(None)] * fill
        dim = 0
        for k in ks:
            if isinstance(k, _Pick):
                x = F.index(x, indices[k.n], positions=(dim,))      # a 0-d index: that dim goes
            elif k is None:
                x = F.unsqueeze(x, dim=dim)
                dim += 1
            elif isinstance(k, builtins.slice):
                if k != builtins.slice(None):
                    x = _slice(F, x, dim, k)
                dim += 1
            else:
                size = x.shape[dim]
                if not -size <= int(k) < size:
                    raise InvalidArgumentError(f"slice index {int(k)} of dimension {dim} out of bounds. "
                                               "[Op:StridedSlice]")
                x = F.select(x, dim=dim, index=int(k))
        return x
    return run_op("StridedSlice", "strided_slice", lower, [x, *picks])


def _slice(F, x, dim: int, key: builtins.slice):
    """x[start:stop:step] along `dim`, Python's rules; a negative step is a flip and a forward slice
    (the registry's slice, as PyTorch's, steps forward only)."""
    step = 1 if key.step is None else int(key.step)
    bound = (lambda v: None if v is None else int(v))
    if step > 0:
        return F.slice(x, dim=dim, start=bound(key.start), end=bound(key.stop), step=step)
    size = x.shape[dim]
    picked = builtins.range(size)[bound(key.start):bound(key.stop):step]     # the positions, last first
    if not picked:
        return F.slice(x, dim=dim, start=0, end=0, step=1)
    flipped = F.flip(x, dims=(dim,))                  # position p is now size - 1 - p
    return F.slice(flipped, dim=dim, start=size - 1 - picked[0], end=size - picked[-1], step=-step)


def slice(input_, begin, size, name=None):  # noqa: A001 - TensorFlow's name
    """`tf.slice`: `size[i]` elements from `begin[i]` along each axis (-1: all the rest)."""
    x = convert_to_tensor(input_)
    begin, size = _shape_tuple(begin), _shape_tuple(size)
    shape = x.shape.as_list()
    if len(begin) != len(shape) or len(size) != len(shape):
        raise InvalidArgumentError(f"Expected begin and size arguments to be 1-D tensors of size {len(shape)}, "
                                   f"but got shapes [{len(begin)}] and [{len(size)}] instead. [Op:Slice]")
    for i, (b, n, d) in enumerate(zip(begin, size, shape)):
        if not 0 <= b <= d:
            raise InvalidArgumentError(f"Expected begin[{i}] in [0, {d}], but got {b} [Op:Slice]")
        if n != -1 and not 0 <= n <= d - b:
            raise InvalidArgumentError(f"Expected size[{i}] in [0, {d - b}], but got {n} [Op:Slice]")

    def lower(F, x):
        for i, (b, n, d) in enumerate(zip(begin, size, shape)):
            if (b, n) not in ((0, -1), (0, d)):
                x = F.slice(x, dim=i, start=b, end=d if n == -1 else b + n, step=1)
        return x
    return run_op("Slice", name or "Slice", lower, [x])


def strided_slice(input_, begin, end, strides=None, begin_mask=0, end_mask=0, ellipsis_mask=0, new_axis_mask=0,
                  shrink_axis_mask=0, var=None, name=None):
    """`tf.strided_slice`: the op behind `x[...]`, its key spelled as arrays and bit masks."""
    begin, end = _shape_tuple(begin), _shape_tuple(end)
    strides = (1,) * len(begin) if strides is None else _shape_tuple(strides)
    if not len(begin) == len(end) == len(strides):
        raise InvalidArgumentError("Expected begin, end, and strides to be 1D equal size tensors, but got shapes "
                                   f"[{len(begin)}], [{len(end)}], and [{len(strides)}] instead. [Op:StridedSlice]")
    key = []
    for i, (b, e, s) in enumerate(zip(begin, end, strides)):
        bit = 1 << i
        if ellipsis_mask & bit:
            key.append(Ellipsis)
        elif new_axis_mask & bit:
            key.append(None)
        elif shrink_axis_mask & bit:
            key.append(b)
        else:
            key.append(builtins.slice(None if begin_mask & bit else b, None if end_mask & bit else e, s))
    return getitem(input_, tuple(key))


class _Pick:
    """A key that is a scalar integer tensor known only when the graph runs (the n-th index input)."""

    def __init__(self, n: int):
        self.n = n


def _index_tensors(keys: list) -> tuple[list, list]:
    """The keys with scalar integer tensors made ints where their value is known, and _Picks where not."""
    tracing = context.state().tracing
    picks = []
    for n, k in enumerate(keys):
        if hasattr(k, "_dagscope_value"):
            k = k._dagscope_value()
        if not isinstance(k, (EngineTensor, GraphTensor)):
            continue
        t = convert_to_tensor(k)
        if t.shape.rank != 0 or not t.dtype.is_integer:
            raise UnsupportedError(f"indexing a tensor with a {t.dtype.name} tensor of shape {t.shape} is not supported "
                                   "by Dagscope (a scalar integer tensor is; use tf.gather for index tensors)")
        if isinstance(t, GraphTensor) or (tracing is not None and tracing.is_symbolic(t)):
            keys[n] = _Pick(len(picks))
            picks.append(t)
        else:
            keys[n] = int(t.array)
    return keys, picks


def gather_first(tensor, i: int):
    """`tensor[i]` along the first axis (what iterating over a tensor yields)."""
    return getitem(tensor, i)


# ---- printing -------------------------------------------------------------------------------------------

def print_(*inputs, sep=" ", end="\n", summarize=3, output_stream=None, name=None):
    """`tf.print`: values without the `tf.Tensor(...)` wrapper, like TF's. Inside a tf.function it
    is a `print` node (engine/ops/effects.py) that prints each time the graph runs it — at every
    call, every loop iteration, in the branch taken — not at trace time (function.py writes it).
    As TF's, it writes to standard error unless told otherwise (the page tints that text)."""
    stream = "stdout" if output_stream == "sys.stdout" or output_stream is sys.stdout else "stderr"
    if any(isinstance(x, GraphTensor) for x in inputs):
        raise UnsupportedError("tf.print inside a TF1 graph is not supported by Dagscope; fetch the tensor with "
                               "sess.run and print the result")
    tensors, template = [], []
    for x in inputs:
        if hasattr(x, "_dagscope_value"):
            x = x._dagscope_value()
        if isinstance(x, EngineTensor):
            template.append(len(tensors))
            tensors.append(x)
        else:
            template.append(str(x))
    attrs = {"template": tuple(template), "sep": sep, "end": end, "summarize": int(summarize), "stream": stream}
    if context.state().tracing is not None:
        apply("print", *tensors, **attrs)
    else:
        write_printed([t.array for t in tensors], **attrs)


def write_printed(arrays: list, template: tuple, sep: str, end: str, summarize: int, stream: str) -> None:
    """What tf.print writes: the template's texts, and its input indices as the arrays' values."""
    parts = [_format_values(arrays[item], summarize) if isinstance(item, int) else item for item in template]
    getattr(sys, stream).write(sep.join(parts) + end)


def _format_values(arr: np.ndarray, summarize: int, indent: int = 0) -> str:
    if arr.ndim == 0:
        v = arr[()]
        if arr.dtype.kind == "f":
            return np.format_float_positional(v, trim="-")
        return str(v).lower() if arr.dtype.kind == "b" else str(v)
    n = arr.shape[0]
    idx = list(builtins.range(n)) if summarize < 0 or n <= 2 * summarize else \
        list(builtins.range(summarize)) + [None] + list(builtins.range(n - summarize, n))
    parts = ["..." if i is None else _format_values(arr[i], summarize, indent + 1) for i in idx]
    joiner = " " if arr.ndim == 1 else "\n" + " " * (indent + 1)
    return "[" + joiner.join(parts) + "]"
