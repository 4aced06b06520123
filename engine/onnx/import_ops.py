"""ONNX operator -> the IR ops that compute it: `IMPORTERS[op_type](cx, node, xs, attrs)` returns the
IR Values of the node's outputs, built with `cx.g.call(...)` (engine/onnx/reader.py's Context).
`xs` are the inputs' Values ("" inputs as None); `cx.const(i)` is input i's array when the file
fixes it (an initializer, a Constant, or computed from them: shape arithmetic folds at import).
An operator missing here, or one whose attributes a builder does not take (it raises NotConverted),
stays in the graph as an opaque node, drawn and marked (reader.py)."""
from __future__ import annotations

import numpy as np
from onnx import helper

IMPORTERS: dict = {}


class NotConverted(Exception):
    """This node's operator or attributes have no IR equivalent: it is kept as an opaque node."""


def imports(*op_types):
    def add(fn):
        for op in op_types:
            IMPORTERS[op] = fn
        return fn
    return add


def numpy_dtype(onnx_type: int) -> np.dtype:
    return np.dtype(helper.tensor_dtype_to_np_dtype(onnx_type))


def _axis(axis: int, rank: int) -> int:
    if not -max(rank, 1) <= axis < max(rank, 1):
        raise NotConverted(f"axis {axis} is outside a rank-{rank} input")
    return axis % max(rank, 1)


def _ints(cx, node, i: int, what: str) -> list[int]:
    arr = cx.const(i)
    if arr is None:
        raise NotConverted(f"its {what} is computed at run time (Dagscope's graphs have fixed shapes)")
    return [int(v) for v in np.asarray(arr).ravel()]


# ---- elementwise --------------------------------------------------------------------------------
_UNARY = {"Relu": "relu", "Sigmoid": "sigmoid", "Tanh": "tanh", "Exp": "exp", "Log": "log", "Sqrt": "sqrt",
          "Abs": "abs", "Neg": "neg", "Erf": "erf", "Sin": "sin", "Cos": "cos", "Floor": "floor", "Ceil": "ceil",
          "Reciprocal": "reciprocal", "Sign": "sign", "Round": "round", "IsNaN": "isnan", "Identity": "clone"}
_BINARY = {"Add": "add", "Sub": "sub", "Mul": "mul", "Div": "div", "Pow": "pow", "Equal": "eq", "Less": "lt",
           "Greater": "gt", "LessOrEqual": "le", "GreaterOrEqual": "ge"}


@imports(*_UNARY)
def _unary(cx, node, xs, attrs):
    return [cx.g.call(_UNARY[node.op_type], xs[0])]


@imports(*_BINARY)
def _binary(cx, node, xs, attrs):
    a, b = xs
    if node.op_type == "Div" and a.dtype.kind in "iu" and b.dtype.kind in "iu":
        raise NotConverted("integer Div truncates, which Dagscope's div does not")
    return [cx.g.call(_BINARY[node.op_type], a, b)]


@imports("Max", "Min")
def _variadic(cx, node, xs, attrs):
    out = xs[0]
    for x in xs[1:]:
        out = cx.g.call("maximum" if node.op_type == "Max" else "minimum", out, x)
    return [out]


@imports("Not")
def _not(cx, node, xs, attrs):
    return [cx.g.call("bitwise_not", xs[0])]


@imports("Where")
def _where(cx, node, xs, attrs):
    return [cx.g.call("where", *xs)]


@imports("Cast")
def _cast(cx, node, xs, attrs):
    return [cx.g.call("to_dtype", xs[0], dtype=numpy_dtype(attrs["to"]))]


@imports("Dropout")
def _dropout(cx, node, xs, attrs):
    if len(node.output) > 1 and node.output[1]:
        raise NotConverted("its mask output is read")
    return [cx.g.call("clone", xs[0])]          # inference: the identity


@imports("Clip")
def _clip(cx, node, xs, attrs):
    lo = cx.const(1) if len(xs) > 1 and xs[1] is not None else attrs.get("min")
    hi = cx.const(2) if len(xs) > 2 and xs[2] is not None else attrs.get("max")
    if (len(xs) > 1 and xs[1] is not None and lo is None) or (len(xs) > 2 and xs[2] is not None and hi is None):
        raise NotConverted("its bounds are computed at run time")
    return [cx.g.call("clamp", xs[0], min=None if lo is None else float(lo), max=None if hi is None else float(hi))]


@imports("LeakyRelu")
def _leaky_relu(cx, node, xs, attrs):
    return [cx.g.call("leaky_relu", xs[0], negative_slope=float(attrs.get("alpha", 0.01)))]


@imports("Elu")
def _elu(cx, node, xs, attrs):
    return [cx.g.call("elu", xs[0], alpha=float(attrs.get("alpha", 1.0)))]


@imports("Softplus")
def _softplus(cx, node, xs, attrs):
    return [cx.g.call("softplus", xs[0], beta=1.0, threshold=20.0)]


@imports("Gelu")
def _gelu(cx, node, xs, attrs):
    return [cx.g.call("gelu", xs[0], approximate=attrs.get("approximate", "none"))]


@imports("Softmax", "LogSoftmax")
def _softmax(cx, node, xs, attrs):
    if cx.opset < 13 and len(xs[0].shape) > 2:
        raise NotConverted("before opset 13 Softmax flattens its input into 2-D")
    dim = _axis(int(attrs.get("axis", -1)), len(xs[0].shape))
    return [cx.g.call("softmax" if node.op_type == "Softmax" else "log_softmax", xs[0], dim=dim)]


# ---- linear algebra, normalization, convolution, pooling ------------------------------------------
@imports("MatMul")
def _matmul(cx, node, xs, attrs):
    if len(xs[0].shape) < 1 or len(xs[1].shape) < 1:
        raise NotConverted("MatMul of a scalar")
    return [cx.g.call("matmul", *xs)]


@imports("Gemm")
def _gemm(cx, node, xs, attrs):
    a, b = xs[0], xs[1]
    if float(attrs.get("alpha", 1.0)) != 1.0 or float(attrs.get("beta", 1.0)) != 1.0:
        raise NotConverted("Gemm with alpha or beta other than 1")
    if attrs.get("transA"):
        a = cx.g.call("transpose", a, dim0=0, dim1=1)
    if attrs.get("transB"):
        b = cx.g.call("transpose", b, dim0=0, dim1=1)
    if len(xs) > 2 and xs[2] is not None:
        return [cx.g.call("addmm", xs[2], a, b)]
    return [cx.g.call("matmul", a, b)]


@imports("BatchNormalization")
def _batch_norm(cx, node, xs, attrs):
    if attrs.get("training_mode") or len(node.output) > 1:
        raise NotConverted("BatchNormalization in training mode")
    return [cx.g.call("native_batch_norm", *xs, training=False, eps=float(attrs.get("epsilon", 1e-5)),
                      has_weight=True, has_bias=True)]


@imports("LayerNormalization")
def _layer_norm(cx, node, xs, attrs):
    if len(node.output) > 1 and any(node.output[1:]):
        raise NotConverted("its mean and inverse deviation outputs are read")
    rank = len(xs[0].shape)
    axis = _axis(int(attrs.get("axis", -1)), rank)
    has_bias = len(xs) > 2 and xs[2] is not None
    return [cx.g.call("native_layer_norm", *[x for x in xs if x is not None], normalized_ndim=rank - axis,
                      eps=float(attrs.get("epsilon", 1e-5)), has_weight=True, has_bias=has_bias)]


def _window(attrs, nd: int):
    if attrs.get("auto_pad", "NOTSET") not in ("NOTSET", "VALID"):
        raise NotConverted(f"auto_pad={attrs['auto_pad']}")
    pads = [int(p) for p in attrs.get("pads", [0] * 2 * nd)]
    if pads[:nd] != pads[nd:]:
        raise NotConverted("asymmetric padding")
    strides = [int(s) for s in attrs.get("strides", [1] * nd)]
    dilations = [int(d) for d in attrs.get("dilations", [1] * nd)]
    return strides, pads[:nd], dilations


@imports("Conv", "ConvTranspose")
def _conv(cx, node, xs, attrs):
    nd = len(xs[0].shape) - 2
    if nd < 1:
        raise NotConverted("a convolution of an input without spatial dims")
    strides, pads, dilations = _window(attrs, nd)
    group = int(attrs.get("group", 1))
    inputs = [x for x in xs if x is not None]
    if node.op_type == "Conv" and nd == 2 and group == 1 and dilations == [1, 1]:
        return [cx.g.call("conv2d", *inputs, stride=tuple(strides), padding=tuple(pads))]
    extra = {}
    if node.op_type == "ConvTranspose":
        if attrs.get("output_shape"):
            raise NotConverted("ConvTranspose with output_shape")
        extra["output_padding"] = tuple(int(o) for o in attrs.get("output_padding", [0] * nd))
    return [cx.g.call("convolution", *inputs, stride=tuple(strides), padding=tuple(pads), dilation=tuple(dilations),
                      groups=group, transposed=node.op_type == "ConvTranspose", **extra)]


@imports("MaxPool", "AveragePool")
def _pool(cx, node, xs, attrs):
    if len(xs[0].shape) != 4:
        raise NotConverted("pooling other than 2-D")
    if len(node.output) > 1 and node.output[1]:
        raise NotConverted("MaxPool's indices output")
    strides, pads, dilations = _window(attrs, 2)
    if dilations != [1, 1] or attrs.get("storage_order"):
        raise NotConverted("dilated pooling")
    kernel = tuple(int(k) for k in attrs["kernel_shape"])
    common = dict(kernel_size=kernel, stride=tuple(strides), padding=tuple(pads),
                  ceil_mode=bool(attrs.get("ceil_mode", 0)))
    if node.op_type == "MaxPool":
        return [cx.g.call("max_pool2d", xs[0], **common)]
    return [cx.g.call("avg_pool2d", xs[0], **common, count_include_pad=bool(attrs.get("count_include_pad", 0)))]


@imports("GlobalAveragePool")
def _global_avg_pool(cx, node, xs, attrs):
    if len(xs[0].shape) != 4:
        raise NotConverted("pooling other than 2-D")
    return [cx.g.call("adaptive_avg_pool2d", xs[0], output_size=(1, 1))]


# ---- reductions -----------------------------------------------------------------------------------
_REDUCE = {"ReduceSum": "sum", "ReduceMean": "mean", "ReduceMax": "amax", "ReduceMin": "amin",
           "ReduceLogSumExp": "logsumexp"}


@imports(*_REDUCE)
def _reduce(cx, node, xs, attrs):
    rank = len(xs[0].shape)
    if len(xs) > 1 and xs[1] is not None:
        axes = _ints(cx, node, 1, "axes")
    else:
        axes = attrs.get("axes")
    keep = bool(attrs.get("keepdims", 1))
    if not axes:
        if attrs.get("noop_with_empty_axes"):
            return [cx.g.call("clone", xs[0])]
        axes = list(range(rank))
    dim = tuple(sorted(_axis(int(a), rank) for a in axes))
    if node.op_type == "ReduceLogSumExp" or node.op_type in ("ReduceMax", "ReduceMin"):
        return [cx.g.call(_REDUCE[node.op_type], xs[0], dim=dim, keepdim=keep)]
    return [cx.g.call(_REDUCE[node.op_type], xs[0], dim=dim, keepdim=keep)]


# ---- movement -------------------------------------------------------------------------------------
@imports("Reshape")
def _reshape(cx, node, xs, attrs):
    target = _ints(cx, node, 1, "target shape")
    source = xs[0].shape
    if attrs.get("allowzero"):
        raise NotConverted("Reshape with allowzero")
    shape = [source[i] if s == 0 else s for i, s in enumerate(target)]
    if shape.count(-1) > 1:
        raise NotConverted("a target shape with two -1s")
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0 or int(np.prod(source)) % known:
            raise NotConverted(f"{list(source)} does not reshape to {target}")
        shape[shape.index(-1)] = int(np.prod(source)) // known
    return [cx.g.call("reshape", xs[0], shape=tuple(int(s) for s in shape))]


@imports("Flatten")
def _flatten(cx, node, xs, attrs):
    shape = xs[0].shape
    axis = int(attrs.get("axis", 1)) % (len(shape) + 1) if shape else 0
    return [cx.g.call("reshape", xs[0], shape=(int(np.prod(shape[:axis])), int(np.prod(shape[axis:]))))]


@imports("Transpose")
def _transpose(cx, node, xs, attrs):
    rank = len(xs[0].shape)
    perm = [int(p) for p in attrs.get("perm", list(range(rank))[::-1])]
    moved = [i for i, p in enumerate(perm) if p != i]
    if len(moved) == 2 and perm[moved[0]] == moved[1]:
        return [cx.g.call("transpose", xs[0], dim0=moved[0], dim1=moved[1])]   # a swap (folds into Gemm again)
    return [cx.g.call("permute", xs[0], dims=tuple(perm))]


@imports("Squeeze", "Unsqueeze")
def _squeeze(cx, node, xs, attrs):
    axes = _ints(cx, node, 1, "axes") if len(xs) > 1 and xs[1] is not None else list(attrs.get("axes", []))
    x = xs[0]
    if node.op_type == "Squeeze":
        rank = len(x.shape)
        dims = tuple(sorted(_axis(a, rank) for a in axes)) if axes else None
        return [cx.g.call("squeeze", x, dim=dims)]
    rank = len(x.shape) + len(axes)
    for a in sorted(_axis(a, rank) for a in axes):
        x = cx.g.call("unsqueeze", x, dim=a)
    return [x]


@imports("Expand")
def _expand(cx, node, xs, attrs):
    shape = tuple(np.broadcast_shapes(tuple(xs[0].shape), tuple(_ints(cx, node, 1, "shape"))))
    return [cx.g.call("expand", xs[0], shape=shape)]


@imports("Concat")
def _concat(cx, node, xs, attrs):
    return [cx.g.call("cat", *xs, dim=_axis(int(attrs["axis"]), len(xs[0].shape)))]


@imports("Slice")
def _slice(cx, node, xs, attrs):
    x, rank = xs[0], len(xs[0].shape)
    starts, ends = _ints(cx, node, 1, "starts"), _ints(cx, node, 2, "ends")
    axes = _ints(cx, node, 3, "axes") if len(xs) > 3 and xs[3] is not None else list(range(len(starts)))
    steps = _ints(cx, node, 4, "steps") if len(xs) > 4 and xs[4] is not None else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis = _axis(axis, rank)
        size = x.shape[axis]
        if step <= 0:
            raise NotConverted("Slice with a step below 1")
        start, end = (max(0, min(v + size if v < 0 else v, size)) for v in (start, end))
        x = cx.g.call("slice", x, dim=axis, start=start, end=max(start, end), step=step)
    return [x]


@imports("Gather")
def _gather(cx, node, xs, attrs):
    x, idx = xs
    axis = _axis(int(attrs.get("axis", 0)), len(x.shape))
    known = cx.const(1)
    if known is not None and np.ndim(known) == 0:
        return [cx.g.call("select", x, dim=axis, index=int(known))]
    if idx.dtype.kind not in "iu":
        raise NotConverted("Gather with indices that are not integers")
    if axis == 0 and cx.is_weight(0) and len(x.shape) == 2:
        return [cx.g.call("embedding", idx, x, padding_idx=None)]
    return [cx.g.call("index", x, idx, positions=(axis,))]


@imports("GatherElements")
def _gather_elements(cx, node, xs, attrs):
    return [cx.g.call("gather", xs[0], xs[1], dim=_axis(int(attrs.get("axis", 0)), len(xs[0].shape)))]


@imports("Trilu")
def _trilu(cx, node, xs, attrs):
    k = _ints(cx, node, 1, "k")[0] if len(xs) > 1 and xs[1] is not None else 0
    return [cx.g.call("triu" if attrs.get("upper", 1) else "tril", xs[0], diagonal=k)]


@imports("Pad")
def _pad(cx, node, xs, attrs):
    if attrs.get("mode", "constant") != "constant" or (len(xs) > 3 and xs[3] is not None):
        raise NotConverted("Pad other than constant on every axis")
    pads = _ints(cx, node, 1, "pads")
    rank = len(xs[0].shape)
    value = cx.const(2) if len(xs) > 2 and xs[2] is not None else 0
    if value is None:
        raise NotConverted("its fill value is computed at run time")
    torch_pad = []
    for axis in reversed(range(rank)):      # PyTorch's order: the last dim first
        torch_pad += [pads[axis], pads[axis + rank]]
    return [cx.g.call("pad", xs[0], pad=tuple(torch_pad), mode="constant", value=float(np.asarray(value)))]


# ---- what a file fixes: constants and shapes --------------------------------------------------------
@imports("Shape")
def _shape(cx, node, xs, attrs):
    shape = np.asarray(xs[0].shape, np.int64)
    start, end = attrs.get("start", 0), attrs.get("end", None)
    return [cx.g.constant(shape[start:end])]


@imports("Constant")
def _constant(cx, node, xs, attrs):
    return [cx.g.constant(cx.attribute_value(node))]


@imports("ConstantOfShape")
def _constant_of_shape(cx, node, xs, attrs):
    shape = _ints(cx, node, 0, "shape")
    cx.check_elements(shape)
    fill = cx.attribute_value(node) if node.attribute else np.zeros((1,), np.float32)
    return [cx.g.constant(np.full(shape, np.asarray(fill).ravel()[0], np.asarray(fill).dtype))]


@imports("Range")
def _range(cx, node, xs, attrs):
    start, limit, delta = (cx.const(i) for i in range(3))
    if start is None or limit is None or delta is None:
        raise NotConverted("its bounds are computed at run time")
    count = int(max(np.ceil((limit - start) / delta), 0))
    cx.check_elements([count])
    return [cx.g.constant(np.arange(start, limit, delta, dtype=np.asarray(start).dtype))]
