"""Activations PyTorch computes as one fused op (its own grad_fn): leaky_relu, silu, hardtanh (relu6),
hardswish, hardsigmoid, elu (with selu, which PyTorch computes as elu), celu, log_sigmoid and mish.

Pointwise, so registered as ELEMENTWISE: compiled graphs fuse them into the loops around them
(their C and numpy forms are in engine/codegen/c_render.py and numpy_render.py).
"""
from __future__ import annotations

import numpy as np

from engine.ops.elementwise import dtype_name, sigmoid_of_float
from engine.ops.registry import ELEMENTWISE, OpDef, Spec, register


def _same(x, **attrs) -> Spec:
    return Spec(tuple(x.shape), x.dtype)


def _leaky_relu_forward(x, negative_slope=0.01):
    # PyTorch: x > 0 ? x : x * negative_slope (so -0.0 and nan take the slope branch, as here)
    return np.where(x > 0, x, x * x.dtype.type(negative_slope))


def _leaky_relu_vjp(F, g, x, out, negative_slope=0.01):
    # PyTorch's leaky_relu_backward: the slope applies at x == 0 too (x > 0 is false there)
    return (F.where(F.gt(x, 0.0), g, F.mul(g, float(negative_slope))),)


register(OpDef(
    "leaky_relu", ELEMENTWISE, _leaky_relu_forward, _same, _leaky_relu_vjp, "LeakyReluBackward0",
    "x if x > 0 else negative_slope * x", "grad_x = grad where x > 0, else negative_slope * grad",
    attrs=("negative_slope",), saves=(0,)))


def _silu_forward(x):
    return x * sigmoid_of_float(x)


def _silu_vjp(F, g, x, out):
    s = F.sigmoid(x)
    return (F.mul(g, F.mul(s, F.add(F.mul(x, F.sub(1.0, s)), 1.0))),)


register(OpDef(
    "silu", ELEMENTWISE, _silu_forward, _same, _silu_vjp, "SiluBackward0", "x * sigmoid(x)",
    "grad_x = grad * sigmoid(x) * (1 + x * (1 - sigmoid(x)))", saves=(0,)))


# ---- hardtanh (relu6), hardswish, hardsigmoid, elu, mish: PyTorch's CPU kernels' formulas -------

def _hardtanh_forward(x, min_val=-1.0, max_val=1.0):
    # clamp: NaN stays NaN; an integer tensor is clamped at the bounds cast to its type (PyTorch's)
    return np.minimum(np.maximum(x, x.dtype.type(min_val)), x.dtype.type(max_val))


def _hardtanh_vjp(F, g, x, out, min_val=-1.0, max_val=1.0):
    # PyTorch's hardtanh_backward: 0 where x <= min_val or x >= max_val (the bounds themselves too)
    return (F.masked_fill(F.masked_fill(g, F.le(x, float(min_val)), value=0.0), F.ge(x, float(max_val)), value=0.0),)


register(OpDef(
    "hardtanh", ELEMENTWISE, _hardtanh_forward, _same, _hardtanh_vjp, "HardtanhBackward0",
    "min(max(x, min_val), max_val)", "grad_x = grad where min_val < x < max_val, else 0",
    attrs=("min_val", "max_val"), saves=(0,)))


def _hardswish_forward(x):
    return x * np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardswish_vjp(F, g, x, out):
    # PyTorch's (2.13, as measured): x <= -3 ? 0 : x < 3 ? grad * (x / 3 + 0.5) : grad
    inner = F.where(F.lt(x, 3.0), F.mul(g, F.add(F.div(x, 3.0), 0.5)), g)
    return (F.masked_fill(inner, F.le(x, -3.0), value=0.0),)


register(OpDef(
    "hardswish", ELEMENTWISE, _hardswish_forward, _same, _hardswish_vjp, "HardswishBackward0",
    "x * relu6(x + 3) / 6", "grad_x = 0 up to x = -3, grad * (x / 3 + 1/2) below x = 3, grad from 3 on",
    saves=(0,)))


def _hardsigmoid_forward(x):
    return np.minimum(np.maximum(x + 3, 0), 6) / 6


def _hardsigmoid_vjp(F, g, x, out):
    # PyTorch's: grad * (1.0f / 6.0f) strictly inside (-3, 3), else 0 (its constant is float32's 1/6)
    sixth = float(np.float32(1.0) / np.float32(6.0))
    return (F.masked_fill(F.masked_fill(F.mul(g, sixth), F.le(x, -3.0), value=0.0), F.ge(x, 3.0), value=0.0),)


register(OpDef(
    "hardsigmoid", ELEMENTWISE, _hardsigmoid_forward, _same, _hardsigmoid_vjp, "HardsigmoidBackward0",
    "relu6(x + 3) / 6", "grad_x = grad / 6 where -3 < x < 3, else 0", saves=(0,)))


def _elu_forward(x, alpha=1.0, scale=1.0, input_scale=1.0):
    # PyTorch's elu kernel, which selu and celu call too: x <= 0 ? expm1(x * input_scale) * (alpha *
    # scale) : x * scale, the coefficients multiplied in the tensor's type (exact when they are 1)
    t = x.dtype.type
    return np.where(x > 0, x * t(scale), np.expm1(x * t(input_scale)) * (t(alpha) * t(scale)))


def _elu_vjp(F, g, x, out, alpha=1.0, scale=1.0, input_scale=1.0):
    # PyTorch's elu_backward (on the input), in its order: x <= 0 ? grad * input_scale * (alpha *
    # scale) * exp(x * input_scale) : grad * scale, the coefficients in the tensor's type
    t = np.dtype(dtype_name(x)).type
    negative = F.mul(F.mul(F.mul(g, float(input_scale)), float(t(alpha) * t(scale))), F.exp(F.mul(x, float(input_scale))))
    return (F.where(F.gt(x, 0.0), F.mul(g, float(scale)), negative),)


register(OpDef(
    "elu", ELEMENTWISE, _elu_forward, _same, _elu_vjp, "EluBackward0",
    "scale * x if x > 0 else scale * alpha * (exp(input_scale * x) - 1)",
    "grad_x = scale * grad where x > 0, else grad * input_scale * scale * alpha * exp(input_scale * x)",
    attrs=("alpha", "scale", "input_scale"), saves=(0,)))


def _celu_forward(x, alpha=1.0):
    return _elu_forward(x, alpha, 1.0, 1.0 / alpha)


def _celu_vjp(F, g, x, out, alpha=1.0):
    # PyTorch's celu derivative is elu_backward(grad, alpha, 1, 1.0 / alpha.toFloat()): its forward
    # scales the input by 1 / alpha in double, its backward by 1 / float(alpha)
    return _elu_vjp(F, g, x, out, alpha, 1.0, 1.0 / float(np.float32(alpha)))


register(OpDef(
    "celu", ELEMENTWISE, _celu_forward, _same, _celu_vjp, "CeluBackward0",
    "x if x > 0 else alpha * (exp(x / alpha) - 1)", "grad_x = grad where x > 0, else grad * exp(x / alpha)",
    attrs=("alpha",), saves=(0,)))


def _log_sigmoid_forward(x):
    # PyTorch's log_sigmoid CPU kernel: min(x, 0) - log1p(exp(-|x|)), no overflow either way
    return np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))


def _log_sigmoid_vjp(F, g, x, out):
    # PyTorch's log_sigmoid_backward: grad * (x < 0 ? 1 - z / (1 + z) : z / (1 + z)), z = exp(-|x|)
    z = F.exp(F.neg(F.abs(x)))
    share = F.div(z, F.add(z, 1.0))
    return (F.mul(g, F.where(F.lt(x, 0.0), F.sub(1.0, share), share)),)


register(OpDef(
    "log_sigmoid", ELEMENTWISE, _log_sigmoid_forward, _same, _log_sigmoid_vjp, "LogSigmoidBackward0",
    "log(sigmoid(x)) = min(x, 0) - log(1 + exp(-|x|))", "grad_x = grad * (1 - sigmoid(x))", saves=(0,)))


def _mish_forward(x):
    return x * np.tanh(np.log1p(np.exp(x)))


def _mish_vjp(F, g, x, out):
    # PyTorch's: grad * (tanh(softplus(x)) + x * sigmoid(x) * (1 - tanh(softplus(x))^2))
    t = F.tanh(F.softplus(x, beta=1.0, threshold=20.0))
    return (F.mul(g, F.add(t, F.mul(F.mul(x, F.sigmoid(x)), F.sub(1.0, F.mul(t, t))))),)


register(OpDef(
    "mish", ELEMENTWISE, _mish_forward, _same, _mish_vjp, "MishBackward0", "x * tanh(softplus(x))",
    "grad_x = grad * (tanh(sp) + x * sigmoid(x) * (1 - tanh(sp)^2)), sp = softplus(x)", saves=(0,)))
