"""Reductions: sum and mean over any dims (keepdim), sum_to_size (the broadcast undoer), max/min, var/std,
logsumexp, vector norms, and the products and running sums (prod, cumsum)."""
from __future__ import annotations

import math

import numpy as np

from engine.ops import kernels
from engine.ops.elementwise import dtype_name
from engine.ops.registry import NN, REDUCE, OpDef, Spec, register
from engine.ops.shapes import normalize_dims, reduced_shape, sum_to_axes


def _sum_dtype(dtype: np.dtype) -> np.dtype:
    return dtype if dtype.kind == "f" else np.dtype(np.int64)


def _sum_forward(x, dim=None, keepdim=False):
    if x.dtype.kind == "f" and type(x) is np.ndarray:
        # np.sum on an ndarray is exactly np.add.reduce, minus its Python wrapper
        return np.add.reduce(x, axis=normalize_dims(dim, x.ndim), dtype=x.dtype, keepdims=keepdim)
    return np.sum(x, axis=normalize_dims(dim, x.ndim), keepdims=keepdim, dtype=_sum_dtype(x.dtype))


def _per_channel(x, dim, keepdim, correction: int):
    """The mean (correction -1) or variance over every dim but 1 in nnkernels.c (batch norm's running
    statistics), or None: not that reduction, or an array it does not take."""
    if not (kernels.module is not None and type(x) is np.ndarray and x.ndim >= 2 and x.size
            and x.flags.c_contiguous and (x.dtype == np.float32 or x.dtype == np.float64)
            and x.size // x.shape[1] > correction
            and normalize_dims(dim, x.ndim) == (0,) + tuple(range(2, x.ndim))):
        return None
    out = np.empty(x.shape[1], x.dtype)
    kernels.module.channel_moments(x, correction, out)
    return out.reshape(reduced_shape(x.shape, dim, keepdim))


def _mean_forward(x, dim=None, keepdim=False):
    fused = _per_channel(x, dim, keepdim, -1) if dim is not None else None    # (the numpy code below, the same bits)
    if fused is not None:
        return fused
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
    fused = (_per_channel(x, dim, keepdim, correction)
             if dim is not None and type(correction) is int and correction >= 0 else None)
    if fused is not None:        # np.var below, in C (the same bits)
        return fused
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


# ---- prod / cumsum (kind NN: numpy library calls, run as whole ops by the compiled backend) --------

def _integer_widened(dtype: np.dtype) -> np.dtype:
    """PyTorch's prod and cumsum keep a float dtype and widen bool and every integer type to int64."""
    return dtype if dtype.kind == "f" else np.dtype(np.int64)


def _result_dtype(x, dtype) -> np.dtype:
    """The dtype= a caller gave (a dtype name: the input is converted to it first), else the widened one."""
    return np.dtype(dtype) if dtype is not None else _integer_widened(x.dtype)


def _back_to_input_dtype(F, grad, x, dtype):
    """With dtype= the op computed in another dtype than x's: its gradient is converted back to x's."""
    return grad if dtype is None or dtype == dtype_name(x) else F.to_dtype(grad, dtype=dtype_name(x))


def _prod_forward(x, dim=None, keepdim=False, dtype=None):
    axis = None if dim is None or x.ndim == 0 else normalize_dims(dim, x.ndim)[0]
    return np.prod(x.astype(_result_dtype(x, dtype), copy=False), axis=axis, keepdims=keepdim)


def _prod_vjp(F, g, x, out, dim=None, keepdim=False, dtype=None):
    # PyTorch's prod_safe_zeros_backward: grad times the product of the *other* elements, formed from
    # exclusive products on both sides, so exact with one zero or many (never result / x).
    grad = F.mul(_expand_back(F, g, x, dim, keepdim), F.prod_others(x, dim=dim))
    return (_back_to_input_dtype(F, grad, x, dtype),)


register(OpDef(
    "prod", NN, _prod_forward,
    lambda x, dim=None, keepdim=False, dtype=None: Spec(reduced_shape(x.shape, dim, keepdim), _result_dtype(x, dtype)),
    _prod_vjp, lambda x, dim=None, keepdim=False, dtype=None: "ProdBackward0" if dim is None else "ProdBackward1",
    "prod(x, dim): x_1 * x_2 * ... * x_n", "grad_x_i = grad * (product of every x_j with j != i) — exact "
    "at zeros: one zero gets the product of the others, every other element 0", attrs=("dim", "keepdim", "dtype"),
    saves=(0,)))


def _exclusive_products(x, axis):
    """out_i = product of x_j over j != i along `axis`: the product of what comes before i times the
    product of what comes after it (two exclusive cumulative products; no division, so zeros are exact)."""
    n = x.shape[axis]
    if n == 0:
        return np.ones_like(x)
    ones = np.ones(x.shape[:axis] + (1,) + x.shape[axis + 1:], dtype=x.dtype)
    before = np.cumprod(np.concatenate([ones, np.take(x, range(n - 1), axis=axis)], axis=axis), axis=axis)
    after_reversed = np.concatenate([ones, np.flip(np.take(x, range(1, n), axis=axis), axis=axis)], axis=axis)
    after = np.flip(np.cumprod(after_reversed, axis=axis), axis=axis)
    return before * after


def _prod_others_forward(x, dim=None):
    if dim is None or x.ndim == 0:
        return _exclusive_products(x.reshape(-1), 0).reshape(x.shape)
    return _exclusive_products(x, normalize_dims(dim, x.ndim)[0])


def _prod_others_vjp(F, g, x, out, dim=None):
    """d out_i / d x_k = product of x_j over j not in {i, k} (0 for k = i). Row i of a matrix that is x
    with x_i replaced by 1 has exactly those products as its own prod_others: an n x n pass, which only a
    second derivative of prod runs (PyTorch's double backward of prod is quadratic as well)."""
    if dim is None or len(x.shape) == 0:
        flat = F.reshape(x, shape=(-1,))
        grad = _prod_others_vjp(F, F.reshape(g, shape=(-1,)), flat, None, dim=0)[0]
        return (F.reshape(grad, shape=tuple(x.shape)),)
    d = normalize_dims(dim, len(x.shape))[0]
    n, trailing = x.shape[d], (1,) * (len(x.shape) - d - 1)
    diagonal = np.eye(n, dtype=bool).reshape((n, n) + trailing)          # axes (i, k) at (d, d + 1)
    rows = F.where(diagonal, 1.0, F.unsqueeze(x, dim=d))                 # rows[.., i, k, ..] = x_k, 1 at k = i
    pairs = F.prod_others(rows, dim=d + 1)                               # prod over j not in {i, k}
    weighted = F.where(diagonal, 0.0, F.mul(pairs, F.unsqueeze(g, dim=d + 1)))
    return (F.sum(weighted, dim=d, keepdim=False),)


register(OpDef(
    "prod_others", NN, _prod_others_forward, lambda x, dim=None: Spec(tuple(x.shape), x.dtype),
    _prod_others_vjp, "CumprodBackward0",
    "out_i = product of every x_j with j != i (along `dim`, or over all elements)",
    "grad_x_k = sum over i != k of grad_i * (product of x_j with j not in {i, k})", attrs=("dim",), saves=(0,)))


def _cumsum_forward(x, dim, reverse=False, dtype=None):
    result = _result_dtype(x, dtype)
    if x.ndim == 0:
        normalize_dims(dim, 0)                    # (checks the dim: a 0-d tensor takes 0 or -1)
        return x.astype(result)
    axis = normalize_dims(dim, x.ndim)[0]
    if reverse:
        return np.flip(np.cumsum(np.flip(x, axis), axis=axis, dtype=result), axis)
    return np.cumsum(x, axis=axis, dtype=result)


register(OpDef(
    "cumsum", NN, _cumsum_forward,
    lambda x, dim, reverse=False, dtype=None: Spec(tuple(x.shape), _result_dtype(x, dtype)),
    # (the gradient of a running sum is the running sum of grad taken from the other end)
    lambda F, g, x, out, dim, reverse=False, dtype=None: (
        _back_to_input_dtype(F, F.cumsum(g, dim=dim, reverse=not reverse), x, dtype),),
    # PyTorch computes cumsum's backward as grad.flip(dim).cumsum(dim).flip(dim): its last node is a flip
    lambda x, dim, reverse=False, dtype=None: "FlipBackward0" if reverse else "CumsumBackward0",
    "out_i = x_1 + ... + x_i along `dim` (reverse: x_i + ... + x_n)",
    "grad_x_i = grad_i + ... + grad_n (the running sum of grad from the other end)",
    attrs=("dim", "reverse", "dtype"), saves=()))


# ---- cumprod ---------------------------------------------------------------------------------------

_CUMPROD_EXACT_MAX = 256    # longer dims take the quotient rule (exact unless an x is 0; see the vjp)


def _cumprod_forward(x, dim, dtype=None):
    result = _result_dtype(x, dtype)
    if x.ndim == 0:
        normalize_dims(dim, 0)
        return x.astype(result)
    return np.cumprod(x, axis=normalize_dims(dim, x.ndim)[0], dtype=result)


def _cumprod_vjp(F, g, x, out, dim, dtype=None):
    """d out_i / d x_k = product of x_j over j <= i, j != k (for i >= k): row k of a matrix that is x
    with x_k replaced by 1 has those as its running product, so zeros in x are exact, as PyTorch's
    formula is. That is an n x n pass; past _CUMPROD_EXACT_MAX elements along dim the gradient is
    PyTorch's no-zero formula, reverse_cumsum(grad * out) / x (inf/nan where an x is 0)."""
    if len(x.shape) == 0:
        return (_back_to_input_dtype(F, g, x, dtype),)
    d = normalize_dims(dim, len(x.shape))[0]
    n, trailing = x.shape[d], (1,) * (len(x.shape) - d - 1)
    if n > _CUMPROD_EXACT_MAX:
        return (_back_to_input_dtype(F, F.div(F.cumsum(F.mul(g, out), dim=d, reverse=True), x), x, dtype),)
    diagonal = np.eye(n, dtype=bool).reshape((n, n) + trailing)           # axes (k, i) at (d, d + 1)
    rows = F.where(diagonal, 1.0, F.unsqueeze(x, dim=d))                  # rows[.., k, i, ..] = x_i, 1 at i = k
    partial = F.cumprod(rows, dim=d + 1)                                  # product of x_j, j <= i, j != k
    later = np.triu(np.ones((n, n), dtype=bool)).reshape((n, n) + trailing)   # i >= k
    weighted = F.where(later, F.mul(partial, F.unsqueeze(g, dim=d)), 0.0)
    return (_back_to_input_dtype(F, F.sum(weighted, dim=d + 1, keepdim=False), x, dtype),)


register(OpDef(
    "cumprod", NN, _cumprod_forward,
    lambda x, dim, dtype=None: Spec(tuple(x.shape), _result_dtype(x, dtype)),
    _cumprod_vjp, "CumprodBackward0",
    "out_i = x_1 * ... * x_i along `dim`",
    "grad_x_k = sum over i >= k of grad_i * (product of x_j for j <= i, j != k)",
    attrs=("dim", "dtype"), saves=(0, "out")))
