"""Elementwise ops: arithmetic, activations, casts and comparisons, each with its forward and vjp side by side.

Every op here is a pure per-element function of its (broadcast) inputs, so fusion may put any
chain of them into one loop nest. Rules are written with `F.<op>` so they run on any builder.
"""
from __future__ import annotations

import math

import numpy as np

from engine.ops.dtypes import promote, promote_with_scalar, result_type, to_float
from engine.ops.registry import ELEMENTWISE, OpDef, Spec, register
from engine.ops.shapes import broadcast, broadcast_bool, broadcast_float, same, same_float
from engine.ops import special
from engine.ops.special import erf


def _binary(ufunc, floats: bool = False, rule=result_type):
    """Forward of a binary ufunc with PyTorch's dtype rule (int64 + float32 -> float32; a 0-d
    float64 tensor does not widen a float32 one). Without `floats`, two arrays of one dtype go
    straight to the ufunc (see `same_dtype_ufunc`)."""
    def forward(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype is b.dtype and not floats:     # the common case (builtin dtypes are singletons)
            return ufunc(a, b)
        if a.dtype != b.dtype or (floats and a.dtype.kind != "f"):
            dt = rule(a, b)
            dt = to_float(dt) if floats else dt
            a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
        return ufunc(a, b)
    if not floats:
        forward.same_dtype_ufunc = ufunc
    return forward


def _fast_path(forward) -> dict:
    """OpDef.extra for a forward that is a bare ufunc whenever both dtypes agree (eager calls it directly)."""
    ufunc = getattr(forward, "same_dtype_ufunc", None)
    return {"same_dtype_ufunc": ufunc} if ufunc is not None else {}


def _unary_float(ufunc):
    def forward(x: np.ndarray) -> np.ndarray:
        return ufunc(x if x.dtype.kind == "f" else x.astype(to_float(x.dtype)))
    return forward


def binary(name, forward, vjp, grad_fn, formula, rule, infer=broadcast, saves=None, saves_for=None,
           vjp_masked=None):
    register(OpDef(name, ELEMENTWISE, forward, infer, vjp, grad_fn, formula, rule, saves=saves,
                   saves_for=saves_for, extra=_fast_path(forward), vjp_masked=vjp_masked))


def _complete(vjp_masked):
    """The full vjp of a binary op from its masked form (both gradients wanted): one rule, so the
    masked form that eager backward runs cannot drift from what graph autodiff reads."""
    return lambda F, g, a, b, out: vjp_masked(F, (True, True), g, a, b, out)


def unary(name, forward, vjp, grad_fn, formula, rule, infer=same_float, saves=None, attrs=(), numpy_vjp=None):
    register(OpDef(name, ELEMENTWISE, forward, infer, vjp, grad_fn, formula, rule, saves=saves, attrs=attrs,
                   numpy_vjp=numpy_vjp))


def no_grad_op(name, forward, infer, formula, attrs=()):
    register(OpDef(name, ELEMENTWISE, forward, infer, None, "", formula,
                   "no gradient flows through this op", differentiable=False, attrs=attrs, saves=(),
                   extra=_fast_path(forward)))


# ---- arithmetic ---------------------------------------------------------------------------------

binary("add", _binary(np.add), lambda F, g, a, b, out: (g, g),
       "AddBackward0", "a + b", "grad_a = grad; grad_b = grad", saves=())
# The masked forms compute only the gradients whose `needs` flag is set (x * w with a constant w
# costs one product in backward, not two); `_complete` derives each full rule from them.


def _sub_vjp_masked(F, needs, g, a, b, out):
    return (g if needs[0] else None), (F.neg(g) if needs[1] else None)


def _mul_vjp_masked(F, needs, g, a, b, out):
    return (F.mul(g, b) if needs[0] else None), (F.mul(g, a) if needs[1] else None)


def _div_vjp_masked(F, needs, g, a, b, out):
    # (PyTorch's -grad * ((a / b) / b), with a / b read from out)
    return (F.div(g, b) if needs[0] else None), (F.mul(F.neg(g), F.div(out, b)) if needs[1] else None)


binary("sub", _binary(np.subtract), _complete(_sub_vjp_masked),
       "SubBackward0", "a - b", "grad_a = grad; grad_b = -grad", saves=(), vjp_masked=_sub_vjp_masked)
binary("mul", _binary(np.multiply), _complete(_mul_vjp_masked),
       "MulBackward0", "a * b", "grad_a = grad * b; grad_b = grad * a", saves=(0, 1), saves_for={0: (1,), 1: (0,)},
       vjp_masked=_mul_vjp_masked)
binary("div", _binary(np.true_divide, floats=True), _complete(_div_vjp_masked),
       "DivBackward0", "a / b", "grad_a = grad / b; grad_b = -grad * out / b", infer=broadcast_float,
       saves=(1, "out"), saves_for={0: (1,), 1: (1, "out")}, vjp_masked=_div_vjp_masked)


def _minmax_vjp(F, g, a, b, a_loses, b_loses):
    # PyTorch's: where(a == b, grad / 2, grad), then masked to 0 for the input that lost (ties split evenly).
    shared = F.where(F.eq(a, b), F.div(g, 2.0), g)
    return F.masked_fill(shared, a_loses, value=0.0), F.masked_fill(shared, b_loses, value=0.0)


binary("maximum", _binary(np.maximum), lambda F, g, a, b, out: _minmax_vjp(F, g, a, b, F.lt(a, b), F.gt(a, b)),
       "MaximumBackward0", "max(a, b)", "grad goes to the larger input (split evenly on ties)")
binary("minimum", _binary(np.minimum), lambda F, g, a, b, out: _minmax_vjp(F, g, a, b, F.gt(a, b), F.lt(a, b)),
       "MinimumBackward0", "min(a, b)", "grad goes to the smaller input (split evenly on ties)")


def _pow_forward(a, b):
    if a.dtype != b.dtype:
        dt = result_type(a, b)
        a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
    return np.power(a, b)


def _pow_vjp(F, g, a, b, out):
    # PyTorch defines d(a^0)/da as 0 everywhere (b * a^(b-1) would be 0 * inf = nan at a == 0).
    grad_a = F.where(F.eq(b, 0.0), 0.0, F.mul(g, F.mul(b, F.pow(a, F.sub(b, 1.0)))))
    # d(a^b)/db = a^b log(a); PyTorch defines it as 0 where a == 0 (log would give nan/inf).
    grad_b = F.mul(g, F.where(F.eq(a, 0.0), 0.0, F.mul(out, F.log(a))))
    return grad_a, grad_b


binary("pow", _pow_forward, _pow_vjp,
       lambda a, b: "PowBackward2" if getattr(a, "_is_scalar", False) else "PowBackward1",
       "a ^ b", "grad_a = grad * b * a^(b-1); grad_b = grad * a^b * log(a)", saves_for={0: (0, 1), 1: (0, "out")})


def pow_scalar_dtype(dtype, exponent) -> np.dtype:
    return promote_with_scalar(dtype, exponent)


def _pow_scalar_forward(x, exponent):
    dt = pow_scalar_dtype(x.dtype, exponent)
    if x.dtype != dt:
        x = x.astype(dt)
    # numpy's power on float32 is ~100x slower than repeated multiplies (DESIGN.md): lower small powers.
    if exponent == 2:
        return x * x
    if exponent == 3:
        return x * x * x
    if exponent == 4:
        sq = x * x
        return sq * sq
    if exponent == 1:
        return x.copy()
    if exponent == 0:
        return np.ones_like(x)
    if exponent == 0.5 and dt.kind == "f":
        return np.sqrt(x)
    if exponent == -1 and dt.kind == "f":
        return np.reciprocal(x)
    if dt.kind != "f" and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    return np.power(x, dt.type(exponent))


def _pow_scalar_vjp(F, g, x, out, exponent):
    if exponent == 0:
        return (F.mul(g, 0.0),)
    if exponent == 1:
        return (g,)
    if exponent == 2:
        return (F.mul(g, F.mul(x, 2.0)),)
    return (F.mul(g, F.mul(F.pow_scalar(x, exponent=exponent - 1), float(exponent))),)


register(OpDef("pow_scalar", ELEMENTWISE, _pow_scalar_forward,
               lambda x, exponent: Spec(x.shape, pow_scalar_dtype(x.dtype, exponent)),
               _pow_scalar_vjp, "PowBackward0", "x ^ exponent",
               "grad_x = grad * exponent * x^(exponent-1)", attrs=("exponent",), saves=(0,)))

# ---- unary math and activations -------------------------------------------------------------------

SQRT1_2 = 1.0 / math.sqrt(2.0)
INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)
SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
GELU_TANH_C = 0.044715

unary("neg", np.negative, lambda F, g, x, out: (F.neg(g),), "NegBackward0", "-x", "grad_x = -grad",
      infer=same, saves=())
unary("exp", _unary_float(np.exp), lambda F, g, x, out: (F.mul(g, out),),
      "ExpBackward0", "exp(x)", "grad_x = grad * exp(x)", saves=("out",))
unary("log", _unary_float(np.log), lambda F, g, x, out: (F.div(g, x),),
      "LogBackward0", "log(x)", "grad_x = grad / x", saves=(0,))
unary("sqrt", _unary_float(np.sqrt), lambda F, g, x, out: (F.div(g, F.mul(out, 2.0)),),
      "SqrtBackward0", "sqrt(x)", "grad_x = grad / (2 * sqrt(x))", saves=("out",))
unary("abs", np.abs, lambda F, g, x, out: (F.mul(g, F.sign(x)),),
      "AbsBackward0", "|x|", "grad_x = grad * sign(x)", infer=same, saves=(0,))
unary("tanh", _unary_float(np.tanh), lambda F, g, x, out: (F.tanh_backward(g, out),),
      "TanhBackward0", "tanh(x)", "grad_x = grad * (1 - tanh(x)^2)", saves=("out",))

unary("sin", _unary_float(np.sin), lambda F, g, x, out: (F.mul(g, F.cos(x)),),
      "SinBackward0", "sin(x)", "grad_x = grad * cos(x)", saves=(0,))
unary("cos", _unary_float(np.cos), lambda F, g, x, out: (F.mul(g, F.neg(F.sin(x))),),   # PyTorch: grad * -sin(x)
      "CosBackward0", "cos(x)", "grad_x = -grad * sin(x)", saves=(0,))
# 1 / x in x's float type (an integer or bool x gives float32, 1 / 0 gives inf). PyTorch's own op, which
# `2 / x` also runs (Tensor.__rtruediv__ is reciprocal(x) * 2); its derivative, from derivatives.yaml,
# -grad * (result * result).conj(), reads only the output: a real dtype's conj is the value itself.
unary("reciprocal", _unary_float(np.reciprocal), lambda F, g, x, out: (F.mul(F.neg(g), F.mul(out, out)),),
      "ReciprocalBackward0", "1 / x", "grad_x = -grad * out * out  (= -grad / x^2)", saves=("out",))



def _zero_grad_rule(F, g, x, out):
    return (F.mul(g, 0.0),)


# Piecewise-constant functions: PyTorch records them and sends back a zero gradient.
unary("floor", np.floor, _zero_grad_rule, "FloorBackward0", "floor(x)", "grad_x = 0", infer=same, saves=())
unary("ceil", np.ceil, _zero_grad_rule, "CeilBackward0", "ceil(x)", "grad_x = 0", infer=same, saves=())
unary("round", np.round, _zero_grad_rule, "RoundBackward0", "round(x) (half to even)", "grad_x = 0",
      infer=same, saves=())
unary("sign", np.sign, _zero_grad_rule, "SignBackward0", "sign(x)", "grad_x = 0", infer=same, saves=())
def _integer_division(ufunc):
    """Forward of // or % as PyTorch: an integer division by zero raises its RuntimeError (numpy would
    warn and give 0); float division by zero gives inf or nan. No bare-ufunc fast path: the check runs."""
    inner = _binary(ufunc)

    def forward(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        # (an empty operand makes an empty result: nothing is divided)
        if a.dtype.kind in "iub" and b.dtype.kind in "iub" and a.size and b.size and not b.all():
            raise RuntimeError("ZeroDivisionError")
        return inner(a, b)
    return forward


def _fmod_vjp(F, g, a, b, out):
    q = F.div(a, b)
    return g, F.neg(F.mul(g, F.where(F.ge(q, 0.0), F.floor(q), F.ceil(q))))


binary("fmod", _integer_division(np.fmod), _fmod_vjp,
       lambda a, b: "FmodBackward0" if getattr(b, "_is_scalar", False) else "FmodBackward1",
       "a mod b (sign of a, C's fmod)", "grad_a = grad; grad_b = -grad * trunc(a / b)", saves=(0, 1))
binary("remainder", _integer_division(np.remainder),
       lambda F, g, a, b, out: (g, F.neg(F.mul(g, F.floor(F.div(a, b))))),
       # PyTorch: RemainderBackward0 for tensor % scalar, RemainderBackward1 for tensor % tensor
       lambda a, b: "RemainderBackward0" if getattr(b, "_is_scalar", False) else "RemainderBackward1",
       "a mod b (sign of b)", "grad_a = grad; grad_b = -grad * floor(a / b)", saves=(0, 1))


def _sigmoid_forward(x):
    x = x if x.dtype.kind == "f" else x.astype(to_float(x.dtype))
    return sigmoid_of_float(x)


def sigmoid_of_float(x: np.ndarray) -> np.ndarray:
    """1 / (1 + exp(-x)), as PyTorch's kernel computes it. exp(-x) may overflow to inf (numpy's
    warnings are off: engine/ops/__init__.py), giving 0, and the quotient keeps its relative precision
    far into the left tail, where 0.5 (1 + tanh(x / 2)) cancels (sigmoid(-20) would be 0, not 2.06e-9)."""
    out = np.exp(-x)
    out += 1
    return np.reciprocal(out, out=out) if type(out) is np.ndarray else np.reciprocal(out)   # (0-d: a scalar)


unary("sigmoid", _sigmoid_forward, lambda F, g, x, out: (F.sigmoid_backward(g, out),),
      "SigmoidBackward0", "1 / (1 + exp(-x))", "grad_x = grad * out * (1 - out)", saves=("out",))
def _relu_numpy_vjp(needs, g, x, out):
    """The rule below for a float32/float64 gradient of out's shape, in the numpy calls it makes on
    the NumpyBuilder (gt's ufunc with 0.0 as out's dtype; where(mask, g, +0.0) is _keep_or_zero)."""
    if not (type(g) is np.ndarray and g.dtype in _SAME_WIDTH_INT and out.dtype is g.dtype and g.shape == out.shape):
        return None
    grad = _keep_or_zero(np.greater(out, np.asarray(0.0, dtype=out.dtype)), g, True)
    return (grad if type(grad) is np.ndarray else np.asarray(grad),)     # (0-d: ufuncs return scalars)


unary("relu", lambda x: np.maximum(x, x.dtype.type(0)),
      lambda F, g, x, out: (F.threshold_backward(g, out, threshold=0.0),),
      "ReluBackward0", "max(x, 0)", "grad_x = grad where x > 0, else 0", infer=same, saves=("out",),
      numpy_vjp=_relu_numpy_vjp)


def _erf_forward(x):
    x = x if x.dtype.kind == "f" else x.astype(to_float(x.dtype))
    return erf(x)


unary("erf", _erf_forward,
      lambda F, g, x, out: (F.mul(g, F.mul(F.exp(F.neg(F.mul(x, x))), TWO_OVER_SQRT_PI)),),
      "ErfBackward0", "erf(x)", "grad_x = grad * 2/sqrt(pi) * exp(-x^2)", saves=(0,))


def _gelu_forward(x, approximate="none"):
    x = x if x.dtype.kind == "f" else x.astype(to_float(x.dtype))
    if approximate == "tanh":
        inner = np.tanh((x + GELU_TANH_C * (x * x * x)) * SQRT_2_OVER_PI)
        return (0.5 * x * (1.0 + inner)).astype(x.dtype, copy=False)
    if approximate != "none":
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    # PyTorch's kernel computes 0.5 x + 0.5 x erf(x / sqrt 2) as one fused multiply-add: one rounding
    # (gelu(-5) = -1.4901e-06, where rounding the product first gives -1.4305e-06), and +0.0 far left,
    # where erf is -1 (x * 0.5 * (1 + erf) would be -0.0). The product of two float32 values is exact in
    # float64, so for float32 the sum rounded once from float64 is the fused result.
    fused = special.gelu(x)          # the same, in one C pass (engine/native), when it is loaded
    if fused is not None:
        return fused
    half = 0.5 * x
    e = erf(x * SQRT1_2)
    if x.dtype == np.float32:
        return (half.astype(np.float64) * e + half).astype(np.float32)
    return (half + half * e).astype(x.dtype, copy=False)


def _gelu_vjp(F, g, x, out, approximate="none"):
    if approximate == "tanh":
        x2 = F.mul(x, x)
        t = F.tanh(F.mul(F.add(x, F.mul(F.mul(x2, x), GELU_TANH_C)), SQRT_2_OVER_PI))
        dinner = F.mul(F.add(F.mul(x2, 3.0 * GELU_TANH_C), 1.0), SQRT_2_OVER_PI)
        left = F.mul(F.add(t, 1.0), 0.5)
        right = F.mul(F.mul(F.mul(x, 0.5), F.sub(1.0, F.mul(t, t))), dinner)
        return (F.mul(g, F.add(left, right)),)
    pdf = F.mul(F.exp(F.mul(F.mul(x, x), -0.5)), INV_SQRT_2PI)
    # Phi(x) + x phi(x) summed in the order of PyTorch's kernel, (x phi(x) + 1/2) + erf(x / sqrt 2) / 2:
    # far left the two terms cancel, and this order rounds in float32 to what PyTorch prints there
    # (-2^-25 at x = -6, 0 at x = -10)
    half_erf = F.mul(F.erf(F.mul(x, SQRT1_2)), 0.5)
    return (F.mul(g, F.add(F.add(F.mul(x, pdf), 0.5), half_erf)),)


def _gelu_numpy_vjp(needs, g, x, out, approximate="none"):
    """The rule below on numpy arrays of one dtype, in one C pass (special.gelu_backward), or None."""
    grad = special.gelu_backward(g, x) if approximate == "none" else None
    return None if grad is None else (grad,)


unary("gelu", _gelu_forward, _gelu_vjp, "GeluBackward0", "x * Phi(x)",
      "grad_x = grad * (Phi(x) + x * phi(x))  (Phi, phi: the normal cdf and pdf)",
      attrs=("approximate",), saves=(0,), numpy_vjp=_gelu_numpy_vjp)


def _softplus_forward(x, beta=1.0, threshold=20.0):
    x = x if x.dtype.kind == "f" else x.astype(to_float(x.dtype))
    z = x * x.dtype.type(beta)
    soft = np.logaddexp(x.dtype.type(0), z) / x.dtype.type(beta)
    return np.where(z > threshold, x, soft)


def _softplus_vjp(F, g, x, out, beta=1.0, threshold=20.0):
    z = F.mul(x, float(beta))
    return (F.where(F.gt(z, float(threshold)), g, F.mul(g, F.sigmoid(z))),)


unary("softplus", _softplus_forward, _softplus_vjp, "SoftplusBackward0", "log(1 + exp(beta x)) / beta",
      "grad_x = grad * sigmoid(beta x) (grad where beta x > threshold)",
      attrs=("beta", "threshold"), saves=(0,))


def _clamp_dtype(dtype, lo, hi):
    for bound in (lo, hi):
        if bound is not None:
            dtype = promote_with_scalar(dtype, bound)
    return np.dtype(dtype)


def _clamp_forward(x, min=None, max=None, fn=None):
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    dt = _clamp_dtype(x.dtype, min, max)
    x = x.astype(dt, copy=False)
    if min is not None:
        x = np.maximum(x, dt.type(min))
    if max is not None:
        x = np.minimum(x, dt.type(max))
    return x


def _clamp_vjp(F, g, x, out, min=None, max=None, fn=None):
    if min is not None:
        g = F.where(F.ge(x, min), g, 0.0)
    if max is not None:
        g = F.where(F.le(x, max), g, 0.0)
    return (g,)


# `fn` names the PyTorch function that ran when it is not clamp itself; it changes only the grad_fn name.
_CLAMP_NAMES = {None: "ClampBackward1", "clamp": "ClampBackward1", "clip": "ClampBackward1",
                "clamp_min": "ClampMinBackward0", "clamp_max": "ClampMaxBackward0"}

unary("clamp", _clamp_forward, _clamp_vjp, lambda x, min=None, max=None, fn=None: _CLAMP_NAMES[fn],
      "min(max(x, min), max)", "grad_x = grad where min <= x <= max, else 0",
      infer=lambda x, min=None, max=None, fn=None: Spec(x.shape, _clamp_dtype(x.dtype, min, max)),
      attrs=("min", "max", "fn"), saves=(0,))


def _nan_to_num_forward(x, nan=0.0, posinf=None, neginf=None):
    if x.dtype.kind not in "fc":
        return x.copy()                   # PyTorch: an integer or bool tensor comes back unchanged
    top = np.finfo(x.dtype)
    return np.nan_to_num(x, nan=nan, posinf=top.max if posinf is None else posinf,
                         neginf=top.min if neginf is None else neginf)


unary("nan_to_num", _nan_to_num_forward, lambda F, g, x, out, nan=0.0, posinf=None, neginf=None: (
          F.where(F.isfinite(x), g, 0.0),),
      "NanToNumBackward0", "x with NaN, +inf and -inf replaced (by 0 and the dtype's largest and lowest)",
      "grad_x = grad where x is finite, else 0",
      infer=lambda x, nan=0.0, posinf=None, neginf=None: Spec(x.shape, x.dtype),
      attrs=("nan", "posinf", "neginf"), saves=(0,))


# clamp with tensor bounds: inputs (x, min, max), (x, min) or (x, max) as `bounds` says. Not maximum
# then minimum: where x equals a bound PyTorch sends the whole gradient to x, not half to each.
_BOUND_KINDS = {"both": ("min", "max"), "min": ("min",), "max": ("max",)}
_CLAMP_TENSOR_NAMES = {None: "ClampBackward0", "clamp": "ClampBackward0", "clip": "ClampBackward0",
                       "clamp_min": "ClampMinBackward1", "clamp_max": "ClampMaxBackward1"}


def _clamp_tensor_forward(x, *bounds, bounds_are="both", fn=None):
    dt = result_type(x, *bounds)
    out = x.astype(dt, copy=False)
    for kind, bound in zip(_BOUND_KINDS[bounds_are], bounds):     # NaN in x or a bound propagates
        out = (np.maximum if kind == "min" else np.minimum)(out, bound.astype(dt, copy=False))
    return out


def _clamp_tensor_vjp(F, g, x, *bounds_and_out, bounds_are="both", fn=None):
    # PyTorch's clamp_backward_min_max: x gets the gradient where min <= x <= max (ties included);
    # min where x < min (and min < max); max where x > max, or everywhere max < min (the output is max).
    bounds = dict(zip(_BOUND_KINDS[bounds_are], bounds_and_out[:-1]))
    lo, hi = bounds.get("min"), bounds.get("max")
    if lo is not None and hi is not None:
        x_keeps = F.bitwise_and(F.ge(x, lo), F.le(x, hi))
        grad_lo = F.where(F.bitwise_and(F.lt(x, lo), F.lt(lo, hi)), g, 0.0)
        grad_hi = F.where(F.bitwise_or(F.gt(x, hi), F.lt(hi, lo)), g, 0.0)
        return F.where(x_keeps, g, 0.0), grad_lo, grad_hi
    if lo is not None:
        return F.where(F.ge(x, lo), g, 0.0), F.where(F.lt(x, lo), g, 0.0)
    return F.where(F.le(x, hi), g, 0.0), F.where(F.gt(x, hi), g, 0.0)


register(OpDef("clamp_tensor", ELEMENTWISE, _clamp_tensor_forward,
               lambda x, *bounds, bounds_are="both", fn=None: broadcast(x, *bounds),
               _clamp_tensor_vjp, lambda *specs, bounds_are="both", fn=None: _CLAMP_TENSOR_NAMES[fn],
               "min(max(x, min), max) with tensor bounds",
               "grad_x = grad where min <= x <= max; grad_min = grad where x < min; grad_max = grad where x > max",
               attrs=("bounds_are", "fn")))


def _masked_fill_forward(x, mask, value):
    return np.where(mask, x.dtype.type(value), x)


register(OpDef("masked_fill", ELEMENTWISE, _masked_fill_forward,
               lambda x, mask, value: Spec(tuple(np.broadcast_shapes(x.shape, mask.shape)), x.dtype),
               lambda F, g, x, mask, out, value: (F.masked_fill(g, mask, value=0.0), None),
               "MaskedFillBackward0", "value where mask else x", "grad_x = grad where not mask, else 0",
               attrs=("value",), saves=(1,)))

unary("clone", lambda x: x.copy(), lambda F, g, x, out: (g,), "CloneBackward0", "a copy of x",
      "grad_x = grad", infer=same, saves=())
# TensorFlow's tf.stop_gradient: a node in the graph (so a capture keeps it) that gradients do not cross
no_grad_op("stop_gradient", lambda x: x.copy(), same, "x, with no gradient flowing back through it")


def _to_dtype_forward(x, dtype):
    return x.astype(dtype)


def dtype_name(value) -> str:
    """'float32' for a numpy dtype, a torch-style dtype or an IR value's dtype."""
    d = value.dtype if hasattr(value, "dtype") else value
    if type(d) in _NAMED_DTYPES:                   # dtype.name builds a new string on every call
        name = _DTYPE_NAMES.get(d)
        if name is None:
            name = _DTYPE_NAMES[d] = d.name
        return name
    return getattr(d, "name", None) or np.dtype(d).name


_DTYPE_NAMES: dict = {}
_NAMED_DTYPES = {type(np.dtype(t)) for t in (np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64,
                                             np.float16, np.float32, np.float64)}


register(OpDef("to_dtype", ELEMENTWISE, _to_dtype_forward,
               lambda x, dtype: Spec(x.shape, np.dtype(dtype)),
               lambda F, g, x, out, dtype: (F.to_dtype(g, dtype=dtype_name(x)),),
               "ToCopyBackward0", "x converted to `dtype`", "grad_x = grad converted back to x's dtype",
               attrs=("dtype",), saves=()))

# ---- ops without gradient -----------------------------------------------------------------------


def compare(name, ufunc, symbol):
    # Compared in the plainly promoted dtype, as the C renderer does (its operands carry no
    # shapes): a 0-d float64 tensor against float32 values compares in float64 here, not float32.
    no_grad_op(name, _binary(ufunc, rule=lambda a, b: promote(a.dtype, b.dtype)), broadcast_bool, f"a {symbol} b")


compare("gt", np.greater, ">")
compare("lt", np.less, "<")
compare("ge", np.greater_equal, ">=")
compare("le", np.less_equal, "<=")
compare("eq", np.equal, "==")
compare("ne", np.not_equal, "!=")
no_grad_op("floor_divide", _integer_division(np.floor_divide), broadcast, "floor(a / b)")
no_grad_op("bitwise_and", _binary(np.bitwise_and), broadcast, "a & b")
no_grad_op("bitwise_or", _binary(np.bitwise_or), broadcast, "a | b")
no_grad_op("bitwise_xor", _binary(np.bitwise_xor), broadcast, "a ^ b")
no_grad_op("bitwise_not", np.invert, same, "~x")
no_grad_op("isnan", np.isnan, lambda x: Spec(x.shape, np.dtype(np.bool_)), "isnan(x)")
no_grad_op("isinf", np.isinf, lambda x: Spec(x.shape, np.dtype(np.bool_)), "isinf(x)")
no_grad_op("isposinf", np.isposinf, lambda x: Spec(x.shape, np.dtype(np.bool_)), "x == +inf")
no_grad_op("isneginf", np.isneginf, lambda x: Spec(x.shape, np.dtype(np.bool_)), "x == -inf")
no_grad_op("isfinite", np.isfinite, lambda x: Spec(x.shape, np.dtype(np.bool_)), "isfinite(x)")

# ---- where -------------------------------------------------------------------------------------------


def _where_infer(cond, a, b, **_):
    return Spec(broadcast(cond, a, b).shape, result_type(a, b))


_BOOL = np.dtype(np.bool_)
_SAME_WIDTH_INT = {np.dtype(np.float32): np.int32, np.dtype(np.float64): np.int64}


def _is_plus_zero(x: np.ndarray) -> bool:
    if x.ndim != 0:
        return False
    value = x.item()                  # a Python float: compared without numpy's per-call overhead
    return value == 0 and not math.copysign(1.0, value) < 0 if type(value) is float else value == 0


def _keep_or_zero(cond, x, keep_where: bool):
    """where(cond, x, +0.0) (or where(cond, +0.0, x)) as an integer product of x's bits with 0/1:
    bit-exact and about 10x faster than np.where, whose per-element branch mispredicts on the
    random-looking masks of relu/clamp/dropout backward passes."""
    itype = _SAME_WIDTH_INT[x.dtype]
    keep = cond if keep_where else np.logical_not(cond)
    # x's bit pattern times 1 or 0 (an integer product: exact): x where kept, +0.0 elsewhere
    return np.multiply(x.view(itype), keep, dtype=itype).view(x.dtype)


def _where_forward(cond, a, b):
    if b.ndim == 0 and a.dtype is b.dtype and a.dtype in _SAME_WIDTH_INT and cond.dtype is _BOOL \
            and a.shape == cond.shape and _is_plus_zero(b):
        return _keep_or_zero(cond, a, True)       # where(mask, g, 0.0): relu/dropout backward
    dt = result_type(a, b)
    if dt in _SAME_WIDTH_INT and cond.dtype == np.bool_:
        if b.ndim == 0 and a.dtype == dt and a.shape == cond.shape and _is_plus_zero(b):
            return _keep_or_zero(cond, a, True)
        if a.ndim == 0 and b.dtype == dt and b.shape == cond.shape and _is_plus_zero(a):
            return _keep_or_zero(cond, b, False)
    return np.where(cond, a.astype(dt, copy=False), b.astype(dt, copy=False))


register(OpDef("where", ELEMENTWISE, _where_forward, _where_infer,
               lambda F, g, cond, a, b, out: (None, F.where(cond, g, 0.0), F.where(cond, 0.0, g)),
               "WhereBackward0", "cond ? a : b", "grad_a = grad where cond; grad_b = grad where not cond",
               saves=(0,)))


# ---- the backward functions of tanh, sigmoid and relu ------------------------------------------------
# PyTorch computes these derivatives with ops of their own (tanh_backward(grad, out)...), so a graph
# built by create_graph=True records TanhBackwardBackward0 & co., and relu's derivative keeps a node
# (and requires_grad) even though its own derivative with respect to x is zero.

_times = _binary(np.multiply)      # mul's forward: g of another dtype than out is promoted as mul does


def _tanh_backward_forward(g, out):
    # the numpy calls of g * (1 - out * out) on the NumpyBuilder (bit for bit)
    return _times(g, np.subtract(np.asarray(1.0, dtype=out.dtype), np.multiply(out, out)))


def _sigmoid_backward_forward(g, out):
    return _times(g, np.multiply(out, np.subtract(np.asarray(1.0, dtype=out.dtype), out)))


def _threshold_backward_forward(g, out, threshold=0.0):
    keep = np.greater(out, np.asarray(threshold, dtype=out.dtype))
    return _where_forward(keep, g, np.zeros((), dtype=g.dtype))


def _grad_shaped(g, out, **_):
    return Spec(tuple(np.broadcast_shapes(g.shape, out.shape)), result_type(g, out))


register(OpDef("tanh_backward", ELEMENTWISE, _tanh_backward_forward, _grad_shaped,
               lambda F, gg, g, out, result: (F.tanh_backward(gg, out), F.mul(F.mul(F.mul(gg, g), out), -2.0)),
               "TanhBackwardBackward0", "grad * (1 - out^2)  (tanh's derivative)",
               "grad_grad = ggrad * (1 - out^2); grad_out = -2 * ggrad * grad * out"))
register(OpDef("sigmoid_backward", ELEMENTWISE, _sigmoid_backward_forward, _grad_shaped,
               lambda F, gg, g, out, result: (F.sigmoid_backward(gg, out),
                                              F.mul(F.mul(gg, g), F.sub(1.0, F.mul(out, 2.0)))),
               "SigmoidBackwardBackward0", "grad * out * (1 - out)  (sigmoid's derivative)",
               "grad_grad = ggrad * out * (1 - out); grad_out = ggrad * grad * (1 - 2 out)"))
register(OpDef("threshold_backward", ELEMENTWISE, _threshold_backward_forward,
               lambda g, out, **_: Spec(tuple(np.broadcast_shapes(g.shape, out.shape)), g.dtype),   # g's values
               # (out's gradient is 0 wherever it is defined: none is sent, as PyTorch sends none)
               lambda F, gg, g, out, result, threshold=0.0: (F.threshold_backward(gg, out, threshold=threshold),
                                                             None),
               "ThresholdBackwardBackward0", "grad where out > threshold, else 0  (relu's derivative)",
               "grad_grad = ggrad where out > threshold, else 0", attrs=("threshold",), saves=(1,)))
