"""IR op -> the ONNX nodes that compute it: `EXPORTERS[op](em, node)` writes `node` into the
Emitter `em` (engine/onnx/export.py), naming its result `em.out(node.out)`. An op missing here
fails the export naming it. Written for opsets 17-21 (Reduce* take their axes as an input from 18,
Gelu is an operator from 20)."""
from __future__ import annotations

import math

import numpy as np
from onnx import helper

from engine.errors import UnsupportedError

EXPORTERS: dict = {}


def onnx_dtype(dtype) -> int:
    return helper.np_dtype_to_tensor_dtype(np.dtype(dtype))


def exports(*ops):
    def add(fn):
        for op in ops:
            EXPORTERS[op] = fn
        return fn
    return add


def _pair(v) -> list[int]:
    return [int(v), int(v)] if isinstance(v, (int, np.integer)) else [int(x) for x in v]


def _inputs(em, node) -> list[str]:
    return [em.name(v) for v in node.inputs]


def _same_dtype(em, node, indices=None) -> list[str]:
    """The inputs, cast to the output's dtype where they differ (ONNX's arithmetic takes one type)."""
    names = _inputs(em, node)
    for i, v in enumerate(node.inputs):
        if indices is None or i in indices:
            names[i] = em.cast(names[i], v.dtype, node.out.dtype)
    return names


def _common_dtype(em, node) -> list[str]:
    """Inputs of a comparison, cast to one dtype (the widest of theirs)."""
    target = np.result_type(*(v.dtype for v in node.inputs))
    return [em.cast(em.name(v), v.dtype, target) for v in node.inputs]


# ---- elementwise -------------------------------------------------------------------------------
_UNARY = {"relu": "Relu", "sigmoid": "Sigmoid", "tanh": "Tanh", "exp": "Exp", "log": "Log", "sqrt": "Sqrt",
          "abs": "Abs", "neg": "Neg", "erf": "Erf", "sin": "Sin", "cos": "Cos", "floor": "Floor", "ceil": "Ceil",
          "reciprocal": "Reciprocal", "sign": "Sign", "round": "Round", "isnan": "IsNaN"}
_BINARY = {"add": "Add", "sub": "Sub", "mul": "Mul", "div": "Div", "pow": "Pow", "maximum": "Max",
           "minimum": "Min"}
_COMPARE = {"eq": "Equal", "lt": "Less", "gt": "Greater", "le": "LessOrEqual", "ge": "GreaterOrEqual"}


def _unary(em, node):
    em.emit(_UNARY[node.op], _same_dtype(em, node), [em.out(node.out)])


def _binary(em, node):
    em.emit(_BINARY[node.op], _same_dtype(em, node), [em.out(node.out)])


def _compare(em, node):
    em.emit(_COMPARE[node.op], _common_dtype(em, node), [em.out(node.out)])


for _op in _UNARY:
    EXPORTERS[_op] = _unary
for _op in _BINARY:
    EXPORTERS[_op] = _binary
for _op in _COMPARE:
    EXPORTERS[_op] = _compare


@exports("ne")
def _ne(em, node):
    em.emit("Not", [em.emit("Equal", _common_dtype(em, node))], [em.out(node.out)])


@exports("clone", "stop_gradient")
def _identity(em, node):
    em.emit("Identity", _inputs(em, node), [em.out(node.out)])


@exports("to_dtype")
def _cast(em, node):
    em.emit("Cast", _inputs(em, node), [em.out(node.out)], to=onnx_dtype(node.out.dtype))


@exports("div_scalar")
def _div_scalar(em, node):
    x = em.name(node.inputs[0])
    em.emit("Div", [x, em.const(np.asarray(node.attrs["divisor"], node.out.dtype), "divisor")], [em.out(node.out)])


@exports("pow_scalar")
def _pow_scalar(em, node):
    x = em.cast(em.name(node.inputs[0]), node.inputs[0].dtype, node.out.dtype)
    em.emit("Pow", [x, em.const(np.asarray(node.attrs["exponent"], node.out.dtype), "exponent")], [em.out(node.out)])


@exports("where")
def _where(em, node):
    c, a, b = _same_dtype(em, node, indices=(1, 2))
    em.emit("Where", [em.cast(c, node.inputs[0].dtype, np.bool_), a, b], [em.out(node.out)])


@exports("masked_fill")
def _masked_fill(em, node):
    x, mask = _inputs(em, node)
    value = em.const(np.asarray(node.attrs["value"], node.out.dtype), "fill_value")
    em.emit("Where", [em.cast(mask, node.inputs[1].dtype, np.bool_), value, x], [em.out(node.out)])


@exports("clamp", "hardtanh")
def _clip(em, node):
    lo = node.attrs.get("min", node.attrs.get("min_val"))
    hi = node.attrs.get("max", node.attrs.get("max_val"))
    dt = node.out.dtype
    em.emit("Clip", [em.name(node.inputs[0]), "" if lo is None else em.const(np.asarray(lo, dt), "min"),
                     "" if hi is None else em.const(np.asarray(hi, dt), "max")], [em.out(node.out)])


@exports("leaky_relu")
def _leaky_relu(em, node):
    em.emit("LeakyRelu", _inputs(em, node), [em.out(node.out)], alpha=float(node.attrs.get("negative_slope", 0.01)))


@exports("elu")
def _elu(em, node):
    em.emit("Elu", _inputs(em, node), [em.out(node.out)], alpha=float(node.attrs.get("alpha", 1.0)))


@exports("silu")
def _silu(em, node):
    x = em.name(node.inputs[0])
    em.emit("Mul", [x, em.emit("Sigmoid", [x])], [em.out(node.out)])


@exports("softplus")
def _softplus(em, node):
    x, beta = em.name(node.inputs[0]), float(node.attrs.get("beta", 1.0))
    if beta == 1.0:
        em.emit("Softplus", [x], [em.out(node.out)])
        return
    b = em.const(np.asarray(beta, node.out.dtype), "beta")
    em.emit("Div", [em.emit("Softplus", [em.emit("Mul", [x, b])]), b], [em.out(node.out)])


@exports("gelu")
def _gelu(em, node):
    x, dt, approximate = em.name(node.inputs[0]), node.out.dtype, node.attrs.get("approximate", "none")
    if em.opset >= 20:
        em.emit("Gelu", [x], [em.out(node.out)], approximate=approximate)
        return

    def c(v, hint):
        return em.const(np.asarray(v, dt), hint)
    if approximate == "tanh":      # 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
        inner = em.emit("Mul", [c(math.sqrt(2 / math.pi), "sqrt_2_over_pi"),
                                em.emit("Add", [x, em.emit("Mul", [c(0.044715, "gelu_coef"),
                                                                   em.emit("Pow", [x, c(3.0, "three")])])])])
        core = em.emit("Tanh", [inner])
    else:                          # 0.5 x (1 + erf(x / sqrt 2))
        core = em.emit("Erf", [em.emit("Div", [x, c(math.sqrt(2.0), "sqrt_2")])])
    em.emit("Mul", [em.emit("Mul", [x, c(0.5, "half")]), em.emit("Add", [core, c(1.0, "one")])], [em.out(node.out)])


# ---- softmax, normalization ---------------------------------------------------------------------
@exports("softmax", "log_softmax")
def _softmax(em, node):
    em.emit("Softmax" if node.op == "softmax" else "LogSoftmax", _inputs(em, node), [em.out(node.out)],
            axis=int(node.attrs["dim"]))


def _split_params(node):
    """(weight, bias, the rest) of a normalization's inputs after x (engine/ops/normalization.py's order)."""
    params = node.inputs[1:]
    hw, hb = node.attrs.get("has_weight", True), node.attrs.get("has_bias", True)
    weight = params[0] if hw else None
    bias = params[int(hw)] if hb else None
    return weight, bias, params[int(hw) + int(hb):]


@exports("native_layer_norm")
def _layer_norm(em, node):
    weight, bias, _ = _split_params(node)
    k = int(node.attrs["normalized_ndim"])
    shape, dt = node.inputs[0].shape[-k:], node.out.dtype
    scale = em.name(weight) if weight is not None else em.const(np.ones(shape, dt), "ln_scale")
    em.emit("LayerNormalization", [em.name(node.inputs[0]), scale] + ([em.name(bias)] if bias is not None else []),
            [em.out(node.out)], axis=-k, epsilon=float(node.attrs.get("eps", 1e-5)))


@exports("native_batch_norm")
def _batch_norm(em, node):
    if node.attrs.get("training", True):
        raise UnsupportedError("Exporting BatchNorm in training mode to ONNX is not supported: call model.eval() "
                               "(torch.onnx.export exports in eval mode unless training=TrainingMode.TRAINING)")
    weight, bias, running = _split_params(node)
    c, dt = node.inputs[0].shape[1], node.out.dtype
    if len(running) != 2:
        raise UnsupportedError("Exporting BatchNorm without running statistics (track_running_stats=False) to "
                               "ONNX is not supported")
    scale = em.name(weight) if weight is not None else em.const(np.ones((c,), dt), "bn_scale")
    b = em.name(bias) if bias is not None else em.const(np.zeros((c,), dt), "bn_bias")
    em.emit("BatchNormalization", [em.name(node.inputs[0]), scale, b, em.name(running[0]), em.name(running[1])],
            [em.out(node.out)], epsilon=float(node.attrs.get("eps", 1e-5)))


# ---- linear algebra, convolution, pooling ------------------------------------------------------
@exports("matmul")
def _matmul(em, node):
    em.emit("MatMul", _inputs(em, node), [em.out(node.out)])


@exports("addmm")
def _addmm(em, node):
    """bias + a @ m as Gemm; a Linear's `weight.t()` folds into transB (the Transpose is then unused)."""
    bias, a, m = node.inputs
    trans_b, source = 0, m
    p = m.producer
    if p is not None and p.op == "transpose" and len(p.inputs[0].shape) == 2:
        trans_b, source = 1, p.inputs[0]
    em.emit("Gemm", [em.name(a), em.name(source), em.name(bias)], [em.out(node.out)], transB=trans_b or None)


@exports("conv2d", "convolution")
def _conv(em, node):
    attrs = node.attrs
    nd = len(node.inputs[0].shape) - 2
    stride, padding = attrs.get("stride", 1), attrs.get("padding", 0)
    stride = [int(stride)] * nd if isinstance(stride, (int, np.integer)) else [int(s) for s in stride]
    padding = [int(padding)] * nd if isinstance(padding, (int, np.integer)) else [int(p) for p in padding]
    dilation = attrs.get("dilation", 1)
    dilation = [int(dilation)] * nd if isinstance(dilation, (int, np.integer)) else [int(d) for d in dilation]
    kind = "Conv"
    extra = {}
    if attrs.get("transposed"):
        kind = "ConvTranspose"
        op = attrs.get("output_padding") or 0
        extra["output_padding"] = [int(op)] * nd if isinstance(op, (int, np.integer)) else [int(o) for o in op]
    em.emit(kind, _inputs(em, node), [em.out(node.out)], strides=stride, pads=padding + padding, dilations=dilation,
            group=int(attrs.get("groups", 1)), kernel_shape=list(node.inputs[1].shape[2:]), **extra)


def _pool_attrs(node):
    a = node.attrs
    k = _pair(a["kernel_size"])
    s = _pair(a.get("stride") or a["kernel_size"])
    p = _pair(a.get("padding", 0))
    return dict(kernel_shape=k, strides=s, pads=p + p, ceil_mode=int(bool(a.get("ceil_mode", False))))


@exports("max_pool2d")
def _max_pool(em, node):
    em.emit("MaxPool", _inputs(em, node), [em.out(node.out)], **_pool_attrs(node))


@exports("avg_pool2d")
def _avg_pool(em, node):
    if node.attrs.get("divisor_override") is not None:
        raise UnsupportedError("Exporting avg_pool2d with divisor_override to ONNX is not supported")
    em.emit("AveragePool", _inputs(em, node), [em.out(node.out)], **_pool_attrs(node),
            count_include_pad=int(bool(node.attrs.get("count_include_pad", True))))


@exports("adaptive_avg_pool2d")
def _adaptive_avg_pool(em, node):
    size, out = node.inputs[0].shape[-2:], tuple(node.attrs["output_size"])
    if out == (1, 1):
        em.emit("GlobalAveragePool", _inputs(em, node), [em.out(node.out)])
    elif all(s % o == 0 for s, o in zip(size, out)):
        k = [s // o for s, o in zip(size, out)]
        em.emit("AveragePool", _inputs(em, node), [em.out(node.out)], kernel_shape=k, strides=k)
    else:
        raise UnsupportedError(f"Exporting adaptive_avg_pool2d from {tuple(size)} to {out} (not a whole number of "
                               "windows) to ONNX is not supported")


# ---- reductions ---------------------------------------------------------------------------------
_REDUCE = {"sum": "ReduceSum", "mean": "ReduceMean", "amax": "ReduceMax", "amin": "ReduceMin",
           "logsumexp": "ReduceLogSumExp"}


def _reduce(em, node):
    dim = node.attrs.get("dim")
    rank = len(node.inputs[0].shape)
    axes = None if dim is None else [int(d) % max(rank, 1) for d in ((dim,) if isinstance(dim, int) else dim)]
    keep = int(bool(node.attrs.get("keepdim", False)))
    x = _same_dtype(em, node)[0]
    op = _REDUCE[node.op]
    if op == "ReduceSum" or em.opset >= 18:     # axes an input (ReduceSum from 13, the others from 18)
        em.emit(op, [x] + ([em.ints(axes, "axes")] if axes is not None else []), [em.out(node.out)], keepdims=keep)
    else:
        em.emit(op, [x], [em.out(node.out)], keepdims=keep, axes=axes)


for _op in _REDUCE:
    EXPORTERS[_op] = _reduce


# ---- movement -----------------------------------------------------------------------------------
@exports("reshape")
def _reshape(em, node):
    target = [int(s) for s in node.out.shape]
    if em.dynamic:
        target = _dynamic_target(list(node.inputs[0].shape), target)
    em.emit("Reshape", [em.name(node.inputs[0]), em.ints(target, "shape")], [em.out(node.out)])


def _dynamic_target(source: list[int], target: list[int]) -> list[int]:
    """With dynamic axes, a reshape copies (0) the leading dims it keeps and lets the first other one be
    inferred (-1), so a batch of another size flows through (B,T,C) -> (B*T,C) -> (B,T,C')."""
    out, i = list(target), 0
    while i < min(len(source), len(target)) and source[i] == target[i]:
        out[i] = 0
        i += 1
    if i < len(target) and -1 not in out and math.prod(source) != 0:
        out[i] = -1
    return out


@exports("transpose")
def _transpose(em, node):
    rank = len(node.inputs[0].shape)
    perm = list(range(rank))
    d0, d1 = int(node.attrs["dim0"]) % max(rank, 1), int(node.attrs["dim1"]) % max(rank, 1)
    perm[d0], perm[d1] = perm[d1], perm[d0]
    em.emit("Transpose", _inputs(em, node), [em.out(node.out)], perm=perm)


@exports("permute")
def _permute(em, node):
    rank = len(node.inputs[0].shape)
    em.emit("Transpose", _inputs(em, node), [em.out(node.out)], perm=[int(d) % rank for d in node.attrs["dims"]])


@exports("squeeze")
def _squeeze(em, node):
    dim = node.attrs.get("dim")
    rank = len(node.inputs[0].shape)
    if dim is None:
        axes = [i for i, s in enumerate(node.inputs[0].shape) if s == 1]
    else:
        axes = [int(d) % rank for d in ((dim,) if isinstance(dim, int) else dim) if node.inputs[0].shape[int(d)] == 1]
    if not axes:
        em.emit("Identity", _inputs(em, node), [em.out(node.out)])
        return
    em.emit("Squeeze", [em.name(node.inputs[0]), em.ints(axes, "axes")], [em.out(node.out)])


@exports("unsqueeze")
def _unsqueeze(em, node):
    em.emit("Unsqueeze", [em.name(node.inputs[0]), em.ints([int(node.attrs["dim"]) % len(node.out.shape)], "axes")],
            [em.out(node.out)])


@exports("expand")
def _expand(em, node):
    em.emit("Expand", [em.name(node.inputs[0]), em.ints(node.out.shape, "shape")], [em.out(node.out)])


@exports("cat")
def _cat(em, node):
    em.emit("Concat", _same_dtype(em, node), [em.out(node.out)], axis=int(node.attrs.get("dim", 0)) % len(node.out.shape))


@exports("stack")
def _stack(em, node):
    axis = int(node.attrs.get("dim", 0)) % len(node.out.shape)
    parts = [em.emit("Unsqueeze", [x, em.ints([axis], "axes")]) for x in _same_dtype(em, node)]
    em.emit("Concat", parts, [em.out(node.out)], axis=axis)


@exports("slice")
def _slice(em, node):
    a = node.attrs
    dim = int(a["dim"]) % len(node.inputs[0].shape)
    size = node.inputs[0].shape[dim]
    start, end, step = a.get("start"), a.get("end"), a.get("step") or 1
    start = 0 if start is None else int(start)
    end = size if end is None else min(int(end), size)
    em.emit("Slice", [em.name(node.inputs[0]), em.ints([start], "starts"), em.ints([end], "ends"),
                      em.ints([dim], "axes"), em.ints([int(step)], "steps")], [em.out(node.out)])


@exports("select")
def _select(em, node):
    dim = int(node.attrs["dim"]) % len(node.inputs[0].shape)
    em.emit("Gather", [em.name(node.inputs[0]), em.const(np.asarray(int(node.attrs["index"]), np.int64), "index")],
            [em.out(node.out)], axis=dim)


@exports("index")
def _index(em, node):
    positions = tuple(node.attrs["positions"])
    if len(positions) != 1:
        raise UnsupportedError(f"Exporting the operator 'index' with index tensors at {len(positions)} positions to "
                               "ONNX is not supported (one index tensor, x[:, idx], is)")
    x, idx = _inputs(em, node)
    em.emit("Gather", [x, em.cast(idx, node.inputs[1].dtype, np.int64)], [em.out(node.out)], axis=positions[0])


@exports("embedding")
def _embedding(em, node):
    idx, weight = _inputs(em, node)
    em.emit("Gather", [weight, idx], [em.out(node.out)], axis=0)


@exports("gather")
def _gather(em, node):
    x, idx = _inputs(em, node)
    em.emit("GatherElements", [x, idx], [em.out(node.out)], axis=int(node.attrs["dim"]) % len(node.inputs[0].shape))


@exports("tril", "triu")
def _trilu(em, node):
    em.emit("Trilu", [em.name(node.inputs[0]), em.const(np.asarray(int(node.attrs.get("diagonal", 0)), np.int64), "k")],
            [em.out(node.out)], upper=int(node.op == "triu"))


@exports("pad")
def _pad(em, node):
    a = node.attrs
    if a.get("mode", "constant") != "constant":
        raise UnsupportedError(f"Exporting pad with mode={a.get('mode')!r} to ONNX is not supported (constant is)")
    rank, pad = len(node.inputs[0].shape), [int(p) for p in a["pad"]]
    begins, ends = [0] * rank, [0] * rank
    for i in range(len(pad) // 2):          # PyTorch's pad lists the last dim first
        begins[rank - 1 - i], ends[rank - 1 - i] = pad[2 * i], pad[2 * i + 1]
    value = em.const(np.asarray(a.get("value") or 0, node.out.dtype), "pad_value")
    em.emit("Pad", [em.name(node.inputs[0]), em.ints(begins + ends, "pads"), value], [em.out(node.out)])
