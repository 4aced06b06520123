"""Arithmetic, elementwise math, activations, clamp, where and the comparisons."""
from __future__ import annotations

import numpy as np

from engine.errors import UnsupportedError
from engine.functional._common import _require_float
from engine.tensor import Tensor, apply


def add(input, other, *, alpha=1):
    return apply("add", input, other if alpha == 1 else mul(other, alpha))


def sub(input, other, *, alpha=1):
    return apply("sub", input, other if alpha == 1 else mul(other, alpha))


def mul(input, other):
    return apply("mul", input, other)


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return apply("div", input, other)
    kinds = {getattr(x, "array", np.asarray(x)).dtype.kind for x in (input, other)}
    if rounding_mode == "floor":
        return apply("floor_divide", input, other) if not kinds & {"f"} else apply("floor", apply("div", input, other))
    if rounding_mode == "trunc" and kinds & {"f"}:
        q = apply("div", input, other)
        return where(ge(q, 0), apply("floor", q), apply("ceil", q))
    raise UnsupportedError(f"div(rounding_mode={rounding_mode!r}) on these dtypes is not supported by Dagscope")


def neg(input):
    return apply("neg", input)


def pow(input, exponent):
    if isinstance(input, Tensor) and isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        return apply("pow_scalar", input, exponent=exponent)
    return apply("pow", input, exponent)


def exp(input): return apply("exp", input)
def log(input): return apply("log", input)
def sqrt(input): return apply("sqrt", input)
def reciprocal(input): return apply("reciprocal", input)
def abs(input): return apply("abs", input)
def sigmoid(input): return apply("sigmoid", input)
def tanh(input): return apply("tanh", input)
def erf(input): return apply("erf", input)
def sin(input): return apply("sin", input)
def floor(input): return apply("floor", input)
def ceil(input): return apply("ceil", input)
def round(input): return apply("round", input)
def remainder(input, other): return apply("remainder", input, other)
def fmod(input, other): return apply("fmod", input, other)
def floor_divide(input, other): return apply("floor_divide", input, other)
def cos(input): return apply("cos", input)
def isnan(input): return apply("isnan", input)


def _activation_(input, name: str, node_name: str, **attrs):
    """PyTorch's in-place activation (relu_, leaky_relu_, silu_): the input is overwritten and
    returned, through the tensor's own in-place machinery; with a graph the input takes on the new
    node, named as PyTorch names the in-place variant's."""
    before = input.grad_fn
    input._inplace(name, **attrs)
    if input.grad_fn is not None and input.grad_fn is not before:
        input.grad_fn.rename(node_name)
    return input


def relu(input, inplace: bool = False):
    return _activation_(input, "relu", "ReluBackward0") if inplace else apply("relu", input)


def gelu(input, approximate: str = "none"):
    _require_float(input, "GeluKernelImpl")
    return apply("gelu", input, approximate=approximate)


def softplus(input, beta=1.0, threshold=20.0):
    _require_float(input, "softplus_cpu")
    return apply("softplus", input, beta=float(beta), threshold=float(threshold))


def silu(input, inplace: bool = False):
    _require_float(input, "silu_cpu")
    return _activation_(input, "silu", "SiluBackward0") if inplace else apply("silu", input)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    _require_float(input, "leaky_relu_cpu")
    if inplace:     # (PyTorch's in-place node saves the result instead of the input: ...Backward1)
        return _activation_(input, "leaky_relu", "LeakyReluBackward1", negative_slope=float(negative_slope))
    return apply("leaky_relu", input, negative_slope=float(negative_slope))


def hardtanh(input, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    attrs = {"min_val": min_val, "max_val": max_val}
    return _activation_(input, "hardtanh", "HardtanhBackward0", **attrs) if inplace else apply("hardtanh", input, **attrs)


def relu6(input, inplace: bool = False):
    """PyTorch's relu6 is hardtanh(x, 0, 6) (its node is HardtanhBackward0)."""
    return hardtanh(input, 0.0, 6.0, inplace)


def hardswish(input, inplace: bool = False):
    _require_float(input, "hardswish_cpu")
    return _activation_(input, "hardswish", "HardswishBackward0") if inplace else apply("hardswish", input)


def hardsigmoid(input, inplace: bool = False):
    _require_float(input, "hardsigmoid_cpu")
    return _activation_(input, "hardsigmoid", "HardsigmoidBackward0") if inplace else apply("hardsigmoid", input)


def elu(input, alpha: float = 1.0, inplace: bool = False):
    _require_float(input, "elu_cpu")
    if inplace:     # (PyTorch's in-place node saves the result: EluBackward1)
        return _activation_(input, "elu", "EluBackward1", alpha=float(alpha))
    return apply("elu", input, alpha=float(alpha))


# SELU's constants as PyTorch's Activation.cpp writes them (doubles, cast to the tensor's type)
SELU_ALPHA = 1.6732632423543772848170429916717
SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace: bool = False):
    """PyTorch computes selu as elu(x, alpha, scale): its node is EluBackward0 (EluBackward1 in place)."""
    _require_float(input, "elu_cpu")
    attrs = {"alpha": SELU_ALPHA, "scale": SELU_SCALE, "input_scale": 1.0}
    return _activation_(input, "elu", "EluBackward1", **attrs) if inplace else apply("elu", input, **attrs)


def celu(input, alpha: float = 1.0, inplace: bool = False):
    _require_float(input, "elu_cpu")
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError: alpha cannot be 0 for CELU")     # PyTorch's words
    attrs = {"alpha": float(alpha)}
    return _activation_(input, "celu", "CeluBackward1", **attrs) if inplace else apply("celu", input, **attrs)


def logsigmoid(input):
    _require_float(input, "log_sigmoid_forward")
    return apply("log_sigmoid", input)


def mish(input, inplace: bool = False):
    _require_float(input, "mish_cpu")
    return _activation_(input, "mish", "MishBackward0") if inplace else apply("mish", input)


def softsign(input):
    """PyTorch's own composition, input / (input.abs() + 1) (grad_fn DivBackward0)."""
    return div(input, add(abs(input), 1))


def tanhshrink(input):
    """PyTorch's own composition, input - input.tanh() (grad_fn SubBackward0)."""
    return sub(input, tanh(input))


def isinf(input): return apply("isinf", input)
def isposinf(input): return apply("isposinf", input)
def isneginf(input): return apply("isneginf", input)
def isfinite(input): return apply("isfinite", input)


def maximum(input, other): return apply("maximum", input, other)
def minimum(input, other): return apply("minimum", input, other)


def clamp(input, min=None, max=None, *, fn=None):
    """torch.clamp with number or tensor bounds. `fn` names the torch function that ran (clamp_min,
    clamp_max) where it is not clamp itself: it changes only the grad_fn name."""
    name, bounds, attrs = clamp_op(min, max, fn)
    return apply(name, input, *bounds, **attrs)


def clamp_op(min=None, max=None, fn=None) -> tuple:
    """(op name, tensor inputs after x, attrs) of a clamp: `clamp` for number bounds, `clamp_tensor`
    (its own gradient rule: ties go to x) for tensor bounds. In-place clamp_ runs the same op."""
    named = {} if fn is None else {"fn": fn}          # (no fn attr unless one is given: graphs show attrs)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return "clamp", (), {"min": min, "max": max, **named}
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        given = ", ".join(f"{k}={type(v).__name__}" for k, v in (("max", max), ("min", min)) if v is not None)
        raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, {given}), but "
                        "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out "
                        "= None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    bounds = tuple(b for b in (min, max) if b is not None)
    bounds_are = "both" if len(bounds) == 2 else ("min" if min is not None else "max")
    return "clamp_tensor", bounds, {"bounds_are": bounds_are, **named}


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min, fn="clamp_min")


def clamp_max(input, max):
    return clamp(input, max=max, fn="clamp_max")


def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    return apply("nan_to_num", input, nan=float(nan), posinf=None if posinf is None else float(posinf),
                 neginf=None if neginf is None else float(neginf))


def where(condition, input, other):
    return apply("where", condition, input, other)


def masked_fill(input, mask, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return where(mask, value.to(input.dtype) if value.array.dtype != input.array.dtype else value, input)
    return apply("masked_fill", input, mask, value=value)


def eq(input, other): return apply("eq", input, other)
def ne(input, other): return apply("ne", input, other)
def gt(input, other): return apply("gt", input, other)
def lt(input, other): return apply("lt", input, other)
def ge(input, other): return apply("ge", input, other)
def le(input, other): return apply("le", input, other)
