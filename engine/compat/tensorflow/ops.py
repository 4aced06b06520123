"""TensorFlow ops (conversion, dispatch, math, matmul, reductions), each defined once as a
*lowering* onto Dagscope's op registry; creation, shape ops and printing are in array_ops.py.

A lowering is a function of a builder `F` (`F.add(x, y)` applies registry op `add`): with the
eager builder it runs now on engine Tensors (autograd and the recorder see it); with the IR
builder it emits graph nodes (TF1 graphs, lowered by Session.run). So an op's meaning is written
in one place for both modes, and no math is implemented here — only TensorFlow's rules on top:
dtype conversion without implicit promotion, TF's names ("Add", "MatMul") and TF's argument names.
"""
from __future__ import annotations

import numpy as np

from engine import autograd
from engine.compat.tensorflow import context, dtypes, graph_def
from engine.compat.tensorflow.eager import EagerTensor, as_eager, infer_array
from engine.compat.tensorflow.errors import InvalidArgumentError
from engine.compat.tensorflow.graph import GraphTensor, default_graph
from engine.errors import GraphLoopLimit, UnsupportedError
from engine.ir.builder import IRBuilder
from engine.ops.builder import Builder
from engine.tensor import Tensor as EngineTensor
from engine.tensor import apply


class _TensorType(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, (EagerTensor, GraphTensor))

    def __subclasscheck__(cls, sub) -> bool:
        return issubclass(sub, (EagerTensor, GraphTensor))


class Tensor(metaclass=_TensorType):
    """`tf.Tensor`: `isinstance(x, tf.Tensor)` holds for eager and symbolic (graph) tensors."""

    def __new__(cls, *args, **kwargs):
        raise TypeError("tf.Tensor cannot be constructed directly; use tf.constant or tf.convert_to_tensor.")


class EagerBuilder(Builder):
    """Runs a lowering now: each `F.<op>` is `engine.tensor.apply`, its output an EagerTensor."""

    def apply(self, name, inputs, attrs):
        return as_eager(apply(name, *inputs, **attrs))


EAGER = EagerBuilder()


def typed_constant(F, arr: np.ndarray):
    """A constant of exactly this dtype inside a lowering (Python scalars would be weakly typed)."""
    if isinstance(F, IRBuilder):
        return F.graph.constant(arr)
    return EagerTensor(arr)


# ---- conversion --------------------------------------------------------------------------------

def _is_tensorish(x) -> bool:
    return isinstance(x, (EngineTensor, GraphTensor)) or hasattr(x, "_dagscope_value")


def _graph_mode(values) -> bool:
    return context.building_graph() or any(isinstance(v, GraphTensor) for v in values)


def _graph_of(values):
    st = context.state()
    if st.graph_stack:                # `with g.as_default()`, or a tf.cond branch being built
        return st.graph_stack[-1]
    for v in values:
        if isinstance(v, GraphTensor):
            return v.graph
    return default_graph()


def _to_tensor(x, dtype, graph):
    """One value as a tensor of the current mode (`graph` None = eager)."""
    if hasattr(x, "_dagscope_value"):                     # tf.Variable
        x = x._dagscope_value() if graph is None else x._dagscope_graph_value(graph)
    if isinstance(x, GraphTensor):
        if graph is None:
            raise TypeError(f"A symbolic graph tensor ({x.name}) cannot be used in eager execution; run it "
                            "with a Session, or build everything in graph mode.")
        if dtype is not None and x.dtype != dtype:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor with "
                             f"dtype {x.dtype.name}: {x!r}")
        return x
    if isinstance(x, EngineTensor):
        if dtype is not None and x.array.dtype != dtypes.as_dtype(dtype).np:
            raise ValueError(f"Tensor conversion requested dtype {dtypes.as_dtype(dtype).name} for Tensor with "
                             f"dtype {dtypes.as_dtype(x.array.dtype).name}: {as_eager(x)!r}")
        if graph is None:
            return as_eager(x)
        return constant(x.array, name="Const", _graph=graph)
    arr = infer_array(x, dtype)
    if graph is None:
        return EagerTensor(np.array(arr, copy=True))     # the caller's array may change later
    return constant(arr, name="Const", _graph=graph)


def convert_to_tensor(value, dtype=None, dtype_hint=None, name=None):
    """`tf.convert_to_tensor`."""
    graph = _graph_of([value]) if _graph_mode([value]) else None
    if dtype is None and dtype_hint is not None and not _is_tensorish(value):
        try:
            return _to_tensor(value, dtype_hint, graph)
        except (TypeError, ValueError):
            pass
    return _to_tensor(value, dtype, graph)


def _operands(tf_type: str, values: list):
    """Inputs of an op whose inputs share one dtype (TF's type attr `T`): the first tensor fixes
    it and Python values are converted to it; a tensor of another dtype is an error, never a cast."""
    if values and all(type(v) is EagerTensor for v in values) and not context.building_graph():
        first = values[0].array.dtype        # the eager hot path: nothing to convert
        for i, v in enumerate(values):
            if v.array.dtype != first:
                _dtype_mismatch(tf_type, i, values[0].dtype, v.dtype, None)
        return list(values)
    graph = _graph_of(values) if _graph_mode(values) else None
    tensors = [_to_tensor(v, None, graph) if _is_tensorish(v) else None for v in values]
    anchor = next((t for t in tensors if t is not None), None)
    if anchor is None:
        anchor = tensors[0] = _to_tensor(values[0], None, graph)
    out = []
    for i, (value, t) in enumerate(zip(values, tensors)):
        if t is None:
            t = _to_tensor(value, anchor.dtype, graph)
        elif t.dtype != anchor.dtype:
            _dtype_mismatch(tf_type, i, anchor.dtype, t.dtype, graph)
        out.append(t)
    return out


def _dtype_mismatch(tf_type, index, expected, got, graph):
    if graph is None:
        raise InvalidArgumentError(
            f"cannot compute {tf_type} as input #{index}(zero-based) was expected to be a {expected.kernel_word} "
            f"tensor but is a {got.kernel_word} tensor [Op:{tf_type}]  (TensorFlow never converts dtypes implicitly: "
            f"use tf.cast)")
    raise TypeError(f"Input #{index} of '{tf_type}' Op has type {got.name} that does not match type "
                    f"{expected.name} of the other inputs (use tf.cast).")


# ---- running an op -------------------------------------------------------------------------------

# What string and complex tensors may go through: ops that move, pick or compare values (and, for
# complex numbers, arithmetic). None of these tensors carries a gradient: a tape watches floats only.
_STRUCTURAL = frozenset({"GatherV2", "GatherNd", "StridedSlice", "Slice", "Reshape", "Transpose", "ExpandDims",
                         "Squeeze", "ConcatV2", "Pack", "Identity", "Shape", "Size", "Rank", "Equal", "NotEqual",
                         "SelectV2", "TensorScatterUpdate", "BroadcastTo"})
_COMPLEX_MATH = frozenset({"AddV2", "Sub", "Mul", "RealDiv", "MatMul", "Neg", "AddN", "Square"})
_STRING_MATH = frozenset({"Add"})      # TF's `+` (tf.add) joins strings: tf.constant("a") + "b" is b'ab'


def _check_values_kind(tf_type: str, inputs: list) -> None:
    for t in inputs:
        # an eager tensor's numpy kind is its DType's (dtypes.DType.kind), without building the DType
        kind = t.array.dtype.kind if type(t) is EagerTensor else t.dtype.kind
        if kind == "O" and tf_type not in _STRUCTURAL | _STRING_MATH or \
                kind == "c" and tf_type not in _STRUCTURAL | _COMPLEX_MATH:
            what = "string" if kind == "O" else t.dtype.name
            can = "reshape, slice, gather, concat, stack, compare" + (" and add, multiply, divide, matmul"
                                                                      if kind == "c" else " and add (join)")
            raise UnsupportedError(f"{tf_type} of a {what} tensor is not supported by Dagscope (of {what} tensors it "
                                   f"can {can}; they carry no gradient)")


def run_op(tf_type: str, name: str | None, lower, inputs: list, **attrs):
    """Run `lower(F, *inputs, **attrs)` now (eager) or add it to the graph (graph mode)."""
    _check_values_kind(tf_type, inputs)
    st = context.state()
    st.devices_initialized = True          # (TensorFlow's runtime starts with the first op)
    if any(isinstance(t, GraphTensor) for t in inputs) or context.building_graph(st):
        graph = _graph_of(inputs)
        return graph.add(tf_type, name, inputs, attrs, lower)
    # Only ops run while a GradientTape records are differentiable, as in TensorFlow.
    previous = autograd._GradMode.enabled
    autograd._GradMode.enabled = bool(st.tapes)
    tracing = st.tracing
    start = tracing.graph._counter.next if tracing is not None else 0
    try:
        return as_eager(lower(EAGER, *inputs, **attrs))
    finally:
        autograd._GradMode.enabled = previous
        if tracing is not None:            # a tf.function's trace: its GraphDef names the IR nodes made here
            graph_def.note_op(tracing, start, tf_type, name)


def _require(x, kinds: str, tf_type: str):
    """TF kernels exist only for some dtypes (tanh of an int32 is an error, not a float)."""
    if x.dtype.kind == "c":
        _check_values_kind(tf_type, [x])       # TF has complex kernels of most math: Dagscope does not
    if x.dtype.np.kind not in kinds:
        allowed = {"f": "floating point", "fi": "numeric", "fiu": "numeric", "fiub": "any"}.get(kinds, kinds)
        raise InvalidArgumentError(f"Value for attr 'T' of {x.dtype.name} is not in the list of allowed values "
                                   f"for {tf_type} ({allowed} dtypes only) [Op:{tf_type}]")


def _static(value) -> np.ndarray:
    """A value the op needs now (a shape, an axis, a bound), refused if only the graph knows it: a TF1
    graph tensor, or inside a tf.function a tensor computed from the function's inputs (rather than
    silently using the value that stands in for the input while tracing)."""
    if isinstance(value, GraphTensor):
        raise UnsupportedError(f"this argument must be a Python value or constant, not the graph tensor {value.name}")
    tracing = context.state().tracing
    if tracing is not None and tracing.is_computed(value):
        raise GraphLoopLimit("this argument must be known when tf.function builds the graph (a Python value or "
                               "a constant); here it is computed from the function's inputs")
    return np.asarray(getattr(value, "array", value))


def _axes(axis):
    if axis is None:
        return None
    if isinstance(axis, (list, tuple)):
        return tuple(int(a) for a in axis)
    if isinstance(axis, (EngineTensor, np.ndarray)):
        arr = _static(axis)
        return tuple(int(a) for a in arr.reshape(-1)) if arr.ndim else int(arr)
    return int(axis)


# ---- creation ---------------------------------------------------------------------------------------

def constant(value, dtype=None, shape=None, name="Const", _graph=None):
    """`tf.constant`: Python ints become int32, floats float32; numpy arrays keep their dtype."""
    arr = infer_array(value, dtype)
    if shape is not None:
        shape = tuple(int(s) for s in shape)
        if arr.size == 1:
            arr = np.full(shape, arr.reshape(()), dtype=arr.dtype)
        elif arr.size == int(np.prod(shape, dtype=np.int64)):
            arr = arr.reshape(shape)
        else:
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {value!r} "
                            f"(converted from {value!r}) has {arr.size} elements, but got `shape` {shape} with "
                            f"{int(np.prod(shape))} elements).")
    graph = _graph if _graph is not None else (default_graph() if context.building_graph() else None)
    if graph is None:
        context.state().devices_initialized = True
        return EagerTensor(np.array(arr, copy=True))
    arr = np.array(arr, copy=True)
    return graph.add("Const", name or "Const", [], {}, None, dtypes.as_dtype(arr.dtype),
                     dtypes.TensorShape(arr.shape), value=arr)


def _shape_tuple(shape) -> tuple:
    if isinstance(shape, (EngineTensor, np.ndarray)):
        return tuple(int(s) for s in _static(shape).reshape(-1))
    if isinstance(shape, dtypes.TensorShape):
        return tuple(shape.as_list())
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


# ---- elementwise arithmetic -----------------------------------------------------------------------

def _binary(tf_type, default_name, engine_op):
    def op(x, y, name=None):
        x, y = _operands(tf_type, [x, y])
        op_type = "Add" if tf_type == "AddV2" and x.dtype == dtypes.string else tf_type    # TF's `+` of strings
        return run_op(op_type, name or default_name, lambda F, a, b: getattr(F, engine_op)(a, b), [x, y])
    op.__name__ = default_name.lower()
    return op


add = _binary("AddV2", "Add", "add")
subtract = _binary("Sub", "Sub", "sub")
multiply = _binary("Mul", "Mul", "mul")
pow = _binary("Pow", "Pow", "pow")  # noqa: A001


def _truediv_lower(F, a, b):
    # TF's truediv: int8/int16/uint8 divide as float32, int32/int64 as float64.
    if a.dtype.kind in "iub":
        target = "float32" if a.dtype.itemsize <= 2 else "float64"
        a, b = F.to_dtype(a, dtype=target), F.to_dtype(b, dtype=target)
    return F.div(a, b)


def truediv(x, y, name=None):
    x, y = _operands("RealDiv", [x, y])
    return run_op("RealDiv", name or "truediv", _truediv_lower, [x, y])


def divide(x, y, name=None):
    return truediv(x, y, name=name or "truediv")


floordiv = _binary("FloorDiv", "floordiv", "floor_divide")
floormod = _binary("FloorMod", "floormod", "remainder")     # Python's sign rule: the divisor's sign
mod = floormod
logical_and = _binary("LogicalAnd", "LogicalAnd", "bitwise_and")
logical_or = _binary("LogicalOr", "LogicalOr", "bitwise_or")
logical_xor = _binary("LogicalXor", "LogicalXor", "bitwise_xor")
bitwise_and = _binary("BitwiseAnd", "BitwiseAnd", "bitwise_and")
bitwise_or = _binary("BitwiseOr", "BitwiseOr", "bitwise_or")
bitwise_xor = _binary("BitwiseXor", "BitwiseXor", "bitwise_xor")


def _extreme(tf_type, pick):
    def op(x, y, name=None):
        x, y = _operands(tf_type, [x, y])
        # where(x >= y, x, y) rather than the registry's maximum: TF sends a tie's whole gradient to x.
        return run_op(tf_type, name or tf_type, lambda F, a, b: F.where(getattr(F, pick)(a, b), a, b), [x, y])
    return op


maximum = _extreme("Maximum", "ge")
minimum = _extreme("Minimum", "le")


def _compare(tf_type, engine_op):
    def op(x, y, name=None):
        x, y = _operands(tf_type, [x, y])
        return run_op(tf_type, name or tf_type, lambda F, a, b: getattr(F, engine_op)(a, b), [x, y])
    return op


equal = _compare("Equal", "eq")
not_equal = _compare("NotEqual", "ne")
greater = _compare("Greater", "gt")
greater_equal = _compare("GreaterEqual", "ge")
less = _compare("Less", "lt")
less_equal = _compare("LessEqual", "le")


def _unary(tf_type, lower, kinds="fiu"):
    def op(x, name=None):
        x = convert_to_tensor(x)
        _require(x, kinds, tf_type)
        return run_op(tf_type, name or tf_type, lower, [x])
    return op


negative = _unary("Neg", lambda F, x: F.neg(x))
abs = _unary("Abs", lambda F, x: F.abs(x))  # noqa: A001
sign = _unary("Sign", lambda F, x: F.sign(x))
square = _unary("Square", lambda F, x: F.mul(x, x))
exp = _unary("Exp", lambda F, x: F.exp(x), "f")
log = _unary("Log", lambda F, x: F.log(x), "f")
sqrt = _unary("Sqrt", lambda F, x: F.sqrt(x), "f")
rsqrt = _unary("Rsqrt", lambda F, x: F.div(1.0, F.sqrt(x)), "f")
reciprocal = _unary("Reciprocal", lambda F, x: F.div(1.0, x), "f")
tanh = _unary("Tanh", lambda F, x: F.tanh(x), "f")
sigmoid = _unary("Sigmoid", lambda F, x: F.sigmoid(x), "f")
softplus = _unary("Softplus", lambda F, x: F.softplus(x), "f")
logical_not = _unary("LogicalNot", lambda F, x: F.bitwise_not(x), "b")
invert = _unary("Invert", lambda F, x: F.bitwise_not(x), "iub")
floor = _unary("Floor", lambda F, x: F.floor(x), "f")
ceil = _unary("Ceil", lambda F, x: F.ceil(x), "f")
round = _unary("Round", lambda F, x: F.round(x), "fi")  # noqa: A001 - TensorFlow's name (half to even, as numpy)
sin = _unary("Sin", lambda F, x: F.sin(x), "f")
cos = _unary("Cos", lambda F, x: F.cos(x), "f")


def squared_difference(x, y, name=None):
    x, y = _operands("SquaredDifference", [x, y])
    return run_op("SquaredDifference", name, lambda F, a, b: F.mul(F.sub(a, b), F.sub(a, b)), [x, y])


def add_n(inputs, name=None):
    values = _operands("AddN", list(inputs))

    def lower(F, *xs):
        total = xs[0]
        for x in xs[1:]:
            total = F.add(total, x)
        return total
    return run_op("AddN", name, lower, values)


def cast(x, dtype, name=None):
    x = convert_to_tensor(x)
    target = dtypes.as_dtype(dtype)
    if x.dtype == target:
        return x
    return run_op("Cast", name or "Cast", lambda F, x: F.to_dtype(x, dtype=target.name), [x])


def where(condition, x=None, y=None, name=None):
    if x is None or y is None:
        raise UnsupportedError("tf.where(condition) without x and y (the coordinates of true elements) is not "
                               "supported by Dagscope")
    cond = convert_to_tensor(condition, dtype=dtypes.bool)
    x, y = _operands("SelectV2", [x, y])
    return run_op("SelectV2", name, lambda F, c, a, b: F.where(c, a, b), [cond, x, y])


def clip_by_value(t, clip_value_min, clip_value_max, name=None):
    t = convert_to_tensor(t)
    lo, hi = (float(_static(v)) for v in (clip_value_min, clip_value_max))
    if t.dtype.is_integer:
        lo, hi = int(lo), int(hi)
    return run_op("clip_by_value", name, lambda F, x: F.clamp(x, min=lo, max=hi), [t])


# ---- matrix products and reductions -------------------------------------------------------------------

def matmul(a, b, transpose_a=False, transpose_b=False, name=None):
    a, b = _operands("MatMul", [a, b])
    for t in (a, b):
        if t.shape.rank is not None and t.shape.rank < 2:
            raise InvalidArgumentError(f"In[0] and In[1] must be at least 2-D for MatMul; got shapes {a.shape} "
                                       f"and {b.shape} (tf.matmul does not take vectors: use tf.reshape or "
                                       "tf.tensordot)")

    def lower(F, x, y):
        if transpose_a:
            x = F.transpose(x, dim0=len(x.shape) - 2, dim1=len(x.shape) - 1)
        if transpose_b:
            y = F.transpose(y, dim0=len(y.shape) - 2, dim1=len(y.shape) - 1)
        return F.matmul(x, y)
    return run_op("MatMul", name or "MatMul", lower, [a, b])


def _reduce(tf_type, lower_one):
    def op(input_tensor, axis=None, keepdims=False, name=None):
        x = convert_to_tensor(input_tensor)
        dims = _axes(axis)
        return run_op(tf_type, name or tf_type, lambda F, x: lower_one(F, x, dims, bool(keepdims)), [x])
    return op


def _sum_lower(F, x, dims, keepdim):
    out = F.sum(x, dim=dims, keepdim=keepdim)
    # The registry sums integers as int64 (PyTorch's rule); TF keeps the input's dtype.
    return out if out.dtype == x.dtype else F.to_dtype(out, dtype=np.dtype(x.dtype).name)


def _mean_lower(F, x, dims, keepdim):
    if np.dtype(x.dtype).kind == "f":
        return F.mean(x, dim=dims, keepdim=keepdim)
    # TF's integer mean is an integer: the sum divided by the count, truncated toward zero.
    wide = F.mean(F.to_dtype(x, dtype="float64"), dim=dims, keepdim=keepdim)
    return F.to_dtype(wide, dtype=np.dtype(x.dtype).name)


reduce_sum = _reduce("Sum", _sum_lower)
reduce_mean = _reduce("Mean", _mean_lower)
reduce_max = _reduce("Max", lambda F, x, d, k: F.amax(x, dim=d, keepdim=k))
reduce_min = _reduce("Min", lambda F, x, d, k: F.amin(x, dim=d, keepdim=k))
reduce_variance = _reduce("reduce_variance", lambda F, x, d, k: F.var(x, dim=d, correction=0, keepdim=k))
reduce_std = _reduce("reduce_std", lambda F, x, d, k: F.std(x, dim=d, correction=0, keepdim=k))
reduce_logsumexp = _reduce("reduce_logsumexp", lambda F, x, d, k: F.logsumexp(x, dim=d, keepdim=k))


def _arg(tf_type, engine_op):
    def op(input, axis=None, output_type=dtypes.int64, name=None):  # noqa: A002
        x = convert_to_tensor(input)
        dim = 0 if axis is None else int(axis)            # TF's default axis is 0, not "all"
        target = dtypes.as_dtype(output_type).name

        def lower(F, x):
            out = getattr(F, engine_op)(x, dim=dim, keepdim=False)
            return out if target == "int64" else F.to_dtype(out, dtype=target)
        return run_op(tf_type, name or tf_type, lower, [x])
    return op


argmax = _arg("ArgMax", "argmax")
argmin = _arg("ArgMin", "argmin")
