"""Activations PyTorch computes as one fused op (its own grad_fn): leaky_relu and silu.

Pointwise, so registered as ELEMENTWISE: compiled graphs fuse them into the loops around them
(their C and numpy forms are in engine/codegen/c_render.py and numpy_render.py).
"""
from __future__ import annotations

import numpy as np

from engine.ops.elementwise import sigmoid_of_float
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
