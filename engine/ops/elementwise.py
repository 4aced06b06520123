"""Elementwise ops: arithmetic, activations and comparisons, each with its forward and vjp side by side."""
from __future__ import annotations

import numpy as np

from engine.ops.dtypes import promote, to_float
from engine.ops.registry import ELEMENTWISE, OpDef, Spec, register
from engine.ops.shapes import broadcast, broadcast_bool, broadcast_float, same, same_float


def _binary(ufunc, floats: bool = False):
    """Forward of a binary ufunc with PyTorch's dtype rule (int64 + float32 -> float32)."""
    def forward(a: np.ndarray, b: np.ndarray) -> np.ndarray:
        if a.dtype != b.dtype or (floats and a.dtype.kind != "f"):
            dt = promote(a.dtype, b.dtype)
            dt = to_float(dt) if floats else dt
            a, b = a.astype(dt, copy=False), b.astype(dt, copy=False)
        return ufunc(a, b)
    return forward


def _unary_float(ufunc):
    def forward(x: np.ndarray) -> np.ndarray:
        return ufunc(x if x.dtype.kind == "f" else x.astype(to_float(x.dtype)))
    return forward


def binary(name, forward, vjp, grad_fn, formula, rule, infer=broadcast):
    register(OpDef(name, ELEMENTWISE, forward, infer, vjp, grad_fn, formula, rule))


def unary(name, forward, vjp, grad_fn, formula, rule, infer=same_float):
    register(OpDef(name, ELEMENTWISE, forward, infer, vjp, grad_fn, formula, rule))


def compare(name, ufunc, symbol):
    register(OpDef(name, ELEMENTWISE, _binary(ufunc), broadcast_bool, None, "", f"a {symbol} b",
                   "comparisons have no gradient", differentiable=False))


binary("add", _binary(np.add), lambda F, g, a, b, out: (g, g),
       "AddBackward0", "a + b", "grad_a = grad; grad_b = grad")
binary("sub", _binary(np.subtract), lambda F, g, a, b, out: (g, F.neg(g)),
       "SubBackward0", "a - b", "grad_a = grad; grad_b = -grad")
binary("mul", _binary(np.multiply), lambda F, g, a, b, out: (F.mul(g, b), F.mul(g, a)),
       "MulBackward0", "a * b", "grad_a = grad * b; grad_b = grad * a")
binary("div", _binary(np.true_divide, floats=True),
       lambda F, g, a, b, out: (F.div(g, b), F.neg(F.div(F.mul(g, out), b))),
       "DivBackward0", "a / b", "grad_a = grad / b; grad_b = -grad * out / b", infer=broadcast_float)
binary("maximum", _binary(np.maximum),
       lambda F, g, a, b, out: _minmax_vjp(F, g, a, b, F.gt(a, b)),
       "MaximumBackward0", "max(a, b)", "grad goes to the larger input (split evenly on ties)")
binary("minimum", _binary(np.minimum),
       lambda F, g, a, b, out: _minmax_vjp(F, g, a, b, F.lt(a, b)),
       "MinimumBackward0", "min(a, b)", "grad goes to the smaller input (split evenly on ties)")


def _minmax_vjp(F, g, a, b, a_wins):
    # PyTorch splits the gradient evenly where a == b.
    tie = F.eq(a, b)
    share_a = F.add(F.where(a_wins, 1.0, 0.0), F.where(tie, 0.5, 0.0))
    return F.mul(g, share_a), F.mul(g, F.sub(1.0, share_a))


unary("neg", np.negative, lambda F, g, x, out: (F.neg(g),), "NegBackward0", "-x", "grad_x = -grad",
      infer=same)
unary("exp", _unary_float(np.exp), lambda F, g, x, out: (F.mul(g, out),),
      "ExpBackward0", "exp(x)", "grad_x = grad * exp(x)")
unary("log", _unary_float(np.log), lambda F, g, x, out: (F.div(g, x),),
      "LogBackward0", "log(x)", "grad_x = grad / x")
unary("tanh", _unary_float(np.tanh), lambda F, g, x, out: (F.mul(g, F.sub(1.0, F.mul(out, out))),),
      "TanhBackward0", "tanh(x)", "grad_x = grad * (1 - tanh(x)^2)")
unary("relu", lambda x: np.maximum(x, x.dtype.type(0)),
      lambda F, g, x, out: (F.where(F.gt(out, 0.0), g, 0.0),),
      "ReluBackward0", "max(x, 0)", "grad_x = grad where x > 0, else 0", infer=same)

compare("gt", np.greater, ">")
compare("lt", np.less, "<")
compare("ge", np.greater_equal, ">=")
compare("le", np.less_equal, "<=")
compare("eq", np.equal, "==")
compare("ne", np.not_equal, "!=")


def _where_infer(cond, a, b, **_):
    return Spec(broadcast(cond, a, b).shape, promote(a.dtype, b.dtype))


def _where_forward(cond, a, b):
    dt = promote(a.dtype, b.dtype)
    return np.where(cond, a.astype(dt, copy=False), b.astype(dt, copy=False))


register(OpDef("where", ELEMENTWISE, _where_forward, _where_infer,
               lambda F, g, cond, a, b, out: (None, F.where(cond, g, 0.0), F.where(cond, 0.0, g)),
               "WhereBackward0", "cond ? a : b", "grad_a = grad where cond; grad_b = grad where not cond"))
