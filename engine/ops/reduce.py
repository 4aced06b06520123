"""Reductions: sum and mean over any dims (keepdim), and sum_to_size, the broadcast undoer."""
from __future__ import annotations

import math

import numpy as np

from engine.ops.registry import REDUCE, OpDef, Spec, register
from engine.ops.shapes import normalize_dims, reduced_shape, sum_to_axes


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.int64)


def _sum_forward(x, dim=None, keepdim=False):
    if x.dtype.kind == "f" and type(x) is np.ndarray:
        # np.sum on an ndarray is exactly np.add.reduce, minus its Python wrapper
        return np.add.reduce(x, axis=normalize_dims(dim, x.ndim), dtype=x.dtype, keepdims=keepdim)
    return np.sum(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim, dtype=_sum_dtype(x.dtype))


def _mean_forward(x, dim=None, keepdim=False):
    # sum / n rather than np.mean: an empty mean is nan without numpy's "Mean of empty slice" warning.
    total = np.sum(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim,
                   dtype=x.dtype if x.dtype.kind == "f" else np.float32)
    return np.true_divide(total, total.dtype.type(_numel_reduced(x.shape, dim)))


def _expand_back(F, g, x, dim, keepdim):
    """Broadcast a reduced gradient back to x's shape."""
    if not keepdim:
        g = F.reshape(g, shape=reduced_shape(x.shape, dim, True))
    return F.expand(g, shape=tuple(x.shape))


def _numel_reduced(shape, dim) -> int:
    axes = normalize_dims(dim, len(shape))
    axes = range(len(shape)) if axes is None else axes
    return int(np.prod([shape[a] for a in axes], dtype=np.int64))


register(OpDef(
    "sum", REDUCE, _sum_forward,
    lambda x, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim), _sum_dtype(x.dtype)),
    lambda F, g, x, out, dim=None, keepdim=False: (_expand_back(F, g, x, dim, keepdim),),
    lambda x, dim=None, keepdim=False: "SumBackward0" if dim is None else "SumBackward1",
    "sum(x, dim)", "grad_x = grad broadcast back over the summed dims", attrs=("dim", "keepdim"), saves=()))

register(OpDef(
    "mean", REDUCE, _mean_forward,
    lambda x, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim),
                                            x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)),
    # (grad.expand(...) / n with n a Scalar, as PyTorch: DivBackward1)
    lambda F, g, x, out, dim=None, keepdim=False: (
        F.div_scalar(_expand_back(F, g, x, dim, keepdim), divisor=float(max(_numel_reduced(x.shape, dim), 1))),),
    lambda x, dim=None, keepdim=False: "MeanBackward0" if dim is None else "MeanBackward1",
    "mean(x, dim)", "grad_x = grad / n broadcast back over the averaged dims", attrs=("dim", "keepdim"),
    saves=()))


def _sum_to_forward(x, shape):
    axes = sum_to_axes(x.shape, tuple(shape))
    return (np.add.reduce(x, axis=axes, keepdims=True) if axes else x).reshape(shape)   # = np.sum


register(OpDef(
    "sum_to_size", REDUCE, _sum_to_forward,
    lambda x, shape: Spec(tuple(shape), x.dtype),
    lambda F, g, x, out, shape: (F.expand(g, shape=tuple(x.shape)),),
    # PyTorch's sum_to sums with keepdim=True, then views the leading dims away when there are any.
    lambda x, shape: "ViewBackward0" if len(x.shape) > len(shape) else "SumBackward1",
    "sum x down to `shape` (undoes broadcasting)",
    "grad_x = grad broadcast back to x's shape", attrs=("shape",), saves=()))


# ---- max / min / amax / argmax ------------------------------------------------------------------

def _extreme_forward(fn):
    def forward(x, dim=None, keepdim=False):
        if dim is None:
            if x.size == 0:
                raise RuntimeError(f"{fn.__name__}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the 'dim' argument.")
            return fn(x)
        return fn(x, axis=normalize_dims(dim, x.ndim)[0], keepdims=keepdim)
    return forward


def _extreme_vjp(arg_op):
    def vjp(F, g, x, out, dim=None, keepdim=False):
        if dim is None:
            # Full reduction: PyTorch shares the gradient evenly among tied maxima.
            hits = F.eq(x, out)
            return (F.div(F.where(hits, g, 0.0), F.sum(hits)),)
        # With a dim the gradient goes to the index that max/min returned.
        index = getattr(F, arg_op)(x, dim=dim, keepdim=True)
        g = g if keepdim else F.unsqueeze(g, dim=dim)
        return (F.gather_backward(g, index, dim=dim, shape=tuple(x.shape)),)
    return vjp


def _extreme_infer(x, dim=None, keepdim=False):
    return Spec(reduced_shape(x.shape, dim, keepdim), x.dtype)


for _name, _fn, _arg, _word in (("max", np.max, "argmax", "largest"), ("min", np.min, "argmin", "smallest")):
    register(OpDef(
        _name, REDUCE, _extreme_forward(_fn), _extreme_infer, _extreme_vjp(_arg),
        lambda x, dim=None, keepdim=False, _n=_name.capitalize(): f"{_n}Backward{1 if dim is None else 0}",
        f"{_name}(x, dim)", f"grad goes to the {_word} element (shared evenly among ties without dim)",
        attrs=("dim", "keepdim"), saves=(0, "out")))


def _amax_forward(fn):
    def forward(x, dim=None, keepdim=False):
        return fn(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim)
    return forward


def _amax_vjp(F, g, x, out, dim=None, keepdim=False):
    out_k = out if keepdim else F.reshape(out, shape=reduced_shape(x.shape, dim, True))
    g_k = g if keepdim else F.reshape(g, shape=reduced_shape(x.shape, dim, True))
    hits = F.eq(x, out_k)
    # PyTorch's scale_grad_by_count: (grad / count) * mask
    return (F.mul(F.div(g_k, F.sum(hits, dim=dim, keepdim=True)), hits),)


for _name, _fn in (("amax", np.max), ("amin", np.min)):
    register(OpDef(
        _name, REDUCE, _amax_forward(_fn), _extreme_infer, _amax_vjp, f"{_name.capitalize()}Backward0",
        f"{_name}(x, dim)", "grad shared evenly among the elements equal to the result",
        attrs=("dim", "keepdim"), saves=(0, "out")))


def _arg_forward(fn):
    def forward(x, dim=None, keepdim=False):
        if dim is None:
            out = fn(x.reshape(-1))
            return np.asarray(out, dtype=np.int64).reshape((1,) * x.ndim if keepdim else ())
        return fn(x, axis=normalize_dims(dim, x.ndim)[0], keepdims=keepdim).astype(np.int64, copy=False)
    return forward


for _name, _fn in (("argmax", np.argmax), ("argmin", np.argmin)):
    register(OpDef(
        _name, REDUCE, _arg_forward(_fn),
        lambda x, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim), np.dtype(np.int64)),
        None, "", f"{_name}(x, dim)", "indices have no gradient", differentiable=False,
        attrs=("dim", "keepdim"), saves=()))


# ---- var / std / logsumexp ------------------------------------------------------------------------

def _dof(shape, dim, correction) -> float:
    return float(_numel_reduced(shape, dim) - correction)


def _var_forward(x, dim=None, correction=1, keepdim=False):
    n = _numel_reduced(x.shape, dim)
    if n - correction <= 0:      # PyTorch returns nan (numpy would warn about degrees of freedom)
        return np.full(reduced_shape(x.shape, dim, keepdim), np.nan, dtype=x.dtype)
    return np.var(x, axis=normalize_dims(dim, x.ndim), ddof=correction, keepdims=keepdim)


def _centered(F, x, dim):
    return F.sub(x, F.mean(x, dim=dim, keepdim=True))


def _var_vjp(F, g, x, out, dim=None, correction=1, keepdim=False):
    dof = _dof(x.shape, dim, correction)
    scale = 2.0 / dof if dof > 0 else float("nan")
    return (F.mul(_expand_back(F, g, x, dim, keepdim), F.mul(_centered(F, x, dim), scale)),)


def _std_vjp(F, g, x, out, dim=None, correction=1, keepdim=False):
    dof = _dof(x.shape, dim, correction)
    out_k = out if keepdim else F.reshape(out, shape=reduced_shape(x.shape, dim, True))
    g_over = F.div(F.reshape(g, shape=reduced_shape(x.shape, dim, True)) if not keepdim else g,
                   F.mul(out_k, dof if dof > 0 else float("nan")))
    g_over = F.where(F.eq(out_k, 0.0), 0.0, g_over)     # PyTorch: 0 where std is 0 (not 0 / 0)
    return (F.mul(F.expand(g_over, shape=tuple(x.shape)), _centered(F, x, dim)),)


_float_reduced = lambda x, dim=None, correction=1, keepdim=False: Spec(  # noqa: E731
    reduced_shape(x.shape, dim, keepdim), x.dtype if x.dtype.kind == "f" else np.dtype(np.float32))

register(OpDef(
    "var", REDUCE, _var_forward, _float_reduced, _var_vjp, "VarBackward0",
    "sum((x - mean)^2) / (n - correction)", "grad_x = grad * 2 (x - mean) / (n - correction)",
    attrs=("dim", "correction", "keepdim"), saves=(0,)))

register(OpDef(
    "std", REDUCE, lambda x, dim=None, correction=1, keepdim=False: np.sqrt(
        _var_forward(x, dim, correction, keepdim)),
    _float_reduced, _std_vjp, "StdBackward0",
    "sqrt(var(x))", "grad_x = grad * (x - mean) / ((n - correction) * std)",
    attrs=("dim", "correction", "keepdim"), saves=(0, "out")))


def _logsumexp_forward(x, dim, keepdim=False):
    axes = normalize_dims(dim, x.ndim)
    if x.dtype.kind != "f":
        x = x.astype(np.float32)
    peak = np.max(x, axis=axes, keepdims=True) if x.size else np.zeros(reduced_shape(x.shape, dim, True), x.dtype)
    peak = np.where(np.isfinite(peak), peak, 0)        # all -inf rows stay -inf, not nan
    out = np.log(np.sum(np.exp(x - peak), axis=axes, keepdims=True)) + peak
    return out if keepdim else out.reshape(reduced_shape(x.shape, dim, False))


def _logsumexp_vjp(F, g, x, out, dim, keepdim=False):
    keep = reduced_shape(x.shape, dim, True)
    out_k = out if keepdim else F.reshape(out, shape=keep)
    g_k = g if keepdim else F.reshape(g, shape=keep)
    return (F.mul(g_k, F.exp(F.sub(x, out_k))),)


register(OpDef(
    "logsumexp", REDUCE, _logsumexp_forward,
    lambda x, dim, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim),
                                       x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)),
    _logsumexp_vjp, "LogsumexpBackward0", "log(sum(exp(x), dim))", "grad_x = grad * exp(x - out)",
    attrs=("dim", "keepdim"), saves=(0, "out")))


# ---- vector norms ----------------------------------------------------------------------------------

def _norm_forward(x, p=2.0, dim=None, keepdim=False):
    axes = normalize_dims(dim, x.ndim)
    if p == 2:
        return np.sqrt(np.sum(x * x, axis=axes, keepdims=keepdim, dtype=x.dtype))
    if p == 0:          # the number of nonzero elements
        return np.sum(x != 0, axis=axes, keepdims=keepdim, dtype=x.dtype)
    size = np.abs(x)
    if p == 1:
        return np.sum(size, axis=axes, keepdims=keepdim, dtype=x.dtype)
    if math.isinf(p):
        if x.size == 0:
            _refuse_empty_inf_norm(x, dim)
        return (np.max if p > 0 else np.min)(size, axis=axes, keepdims=keepdim)
    total = np.sum(np.power(size, x.dtype.type(p)), axis=axes, keepdims=keepdim, dtype=x.dtype)
    return np.power(total, x.dtype.type(1.0 / p))


def _refuse_empty_inf_norm(x, dim):
    """PyTorch's errors for the max of nothing (an empty result over nonempty dims is fine)."""
    axes = normalize_dims(dim, x.ndim)
    if axes is None:
        raise RuntimeError("linalg.vector_norm cannot compute the inf norm on an empty tensor because the "
                           "operation does not have an identity")
    for a in axes:
        if x.shape[a] == 0:     # (PyTorch's message lacks the space before "because")
            raise RuntimeError(f"linalg.vector_norm cannot compute the inf norm on the dimension {a}because "
                               "this dimension is empty and the operation does not have an identity")


def _norm_vjp(F, g, x, out, p=2.0, dim=None, keepdim=False):
    """PyTorch's norm_backward: at a zero vector (norm 0) the gradient is 0, not 0 / 0."""
    if p == 0:
        return (None,)             # the count of nonzeros is piecewise constant: no gradient (as PyTorch)
    keep = reduced_shape(x.shape, dim, True)
    out_k = out if keepdim else F.reshape(out, shape=keep)
    g_k = g if keepdim else F.reshape(g, shape=keep)
    if p == 1:
        return (F.mul(F.sign(x), g_k),)
    if p == 2:
        return (F.mul(x, F.where(F.eq(out_k, 0.0), 0.0, F.div(g_k, out_k))),)
    size = F.abs(x)
    if math.isinf(p):              # amax/amin of |x|: shared evenly by the elements at the extreme (or nan)
        at_extreme = F.bitwise_or(F.eq(size, out_k), F.isnan(size))
        count = F.sum(F.where(at_extreme, 1.0, 0.0), dim=dim, keepdim=True)
        return (F.mul(F.sign(x), F.where(at_extreme, F.div(g_k, count), 0.0)),)
    if p < 1:
        scaled = F.where(F.eq(x, 0.0), 0.0, F.mul(F.sign(x), F.pow_scalar(size, exponent=p - 1)))
        return (F.mul(F.mul(scaled, g_k), F.pow_scalar(out_k, exponent=1 - p)),)
    scale = F.where(F.eq(out_k, 0.0), 0.0, F.div(g_k, F.pow_scalar(out_k, exponent=p - 1)))
    if p < 2:
        return (F.mul(F.mul(F.sign(x), F.pow_scalar(size, exponent=p - 1)), scale),)
    return (F.mul(F.mul(x, F.pow_scalar(size, exponent=p - 2)), scale),)


register(OpDef(
    "norm", REDUCE, _norm_forward,
    lambda x, p=2.0, dim=None, keepdim=False: Spec(reduced_shape(x.shape, dim, keepdim), x.dtype),
    _norm_vjp, "LinalgVectorNormBackward0",
    "(sum |x|^p over dim)^(1/p); p = inf: max |x|", "grad_x = grad * sign(x) |x|^(p-1) / norm^(p-1) "
    "(0 where the norm is 0)", attrs=("p", "dim", "keepdim"), saves=(0, "out")))
