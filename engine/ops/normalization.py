"""Layer and batch normalization as one op each (PyTorch's NativeLayerNormBackward0 and
NativeBatchNormBackward0), with vjps written in registered ops so double backward and graph
autodiff follow.

Both normalize x over some dims D: xhat = (x - mean_D x) * rstd, rstd = 1 / sqrt(var_D x + eps)
(the biased variance), then out = xhat * weight + bias. With batch statistics the input
gradient is rstd * (gx - mean_D gx - xhat * mean_D(gx * xhat)), gx = grad * weight; with fixed
(running) statistics it is just gx * rstd. The optional weight and bias are inputs only when
present (attrs has_weight / has_bias), so a graph never holds a made-up constant for them.
"""
from __future__ import annotations

import numpy as np

from engine.ops import kernels
from engine.ops.registry import NN, OpDef, Spec, register


def _split(params: tuple, has_weight: bool, has_bias: bool):
    """(weight or None, bias or None, the rest) from the inputs after x."""
    weight = params[0] if has_weight else None
    bias = params[int(has_weight)] if has_bias else None
    return weight, bias, params[int(has_weight) + int(has_bias):]


def _normalize_forward(x, dims, rstd_of, mean=None, var=None, eps=1e-5):
    """xhat over `dims`, from the batch's statistics or the given ones (broadcastable to x)."""
    if mean is None:
        mean = np.mean(x, axis=dims, keepdims=True)
        centered = x - mean
        var = np.mean(centered * centered, axis=dims, keepdims=True)
    else:
        centered = x - mean
    return centered * rstd_of(var, eps)


def _rstd(var, eps):
    return 1 / np.sqrt(var + var.dtype.type(eps))


def _batch_moments(F, x, dims):
    """(x - mean, rstd-free variance) as registered ops, the vjp's recomputation of the forward."""
    centered = F.sub(x, F.mean(x, dim=dims, keepdim=True))
    return centered, F.mean(F.mul(centered, centered), dim=dims, keepdim=True)


def _batch_stats_input_grad(F, gx, xhat, rstd, dims):
    mean_gx = F.mean(gx, dim=dims, keepdim=True)
    mean_gx_xhat = F.mean(F.mul(gx, xhat), dim=dims, keepdim=True)
    return F.mul(rstd, F.sub(F.sub(gx, mean_gx), F.mul(xhat, mean_gx_xhat)))


def _param_grad(F, t, dims, shape):
    """t summed over `dims` (none: t itself), shaped as the parameter."""
    total = F.sum(t, dim=dims, keepdim=False) if dims else t
    return total if tuple(total.shape) == tuple(shape) else F.reshape(total, shape=tuple(shape))


# ---- layer norm: statistics over the last `normalized_ndim` dims --------------------------------------

def _norm_dims(ndim: int, normalized_ndim: int) -> tuple[int, ...]:
    return tuple(range(ndim - normalized_ndim, ndim))


def _layer_norm_forward(x, *params, normalized_ndim, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, _ = _split(params, has_weight, has_bias)
    out = _normalize_forward(x, _norm_dims(x.ndim, normalized_ndim), _rstd, eps=eps)
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out.astype(x.dtype, copy=False)


def _layer_norm_infer(x, *params, normalized_ndim, eps=1e-5, has_weight=True, has_bias=True):
    return Spec(tuple(x.shape), x.dtype)


def _layer_norm_vjp(F, g, x, *params_and_out, normalized_ndim, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, _ = _split(params_and_out[:-1], has_weight, has_bias)
    ndim = len(x.shape)
    dims = _norm_dims(ndim, normalized_ndim)
    centered, var = _batch_moments(F, x, dims)
    rstd = F.div(1.0, F.sqrt(F.add(var, float(eps))))
    xhat = F.mul(centered, rstd)
    gx = g if weight is None else F.mul(g, weight)
    grads = [_batch_stats_input_grad(F, gx, xhat, rstd, dims)]
    leading = tuple(range(ndim - normalized_ndim))
    if weight is not None:
        grads.append(_param_grad(F, F.mul(g, xhat), leading, weight.shape))
    if bias is not None:
        grads.append(_param_grad(F, g, leading, bias.shape))
    return tuple(grads)


register(OpDef(
    "native_layer_norm", NN, _layer_norm_forward, _layer_norm_infer, _layer_norm_vjp, "NativeLayerNormBackward0",
    "(x - mean(x)) / sqrt(var(x) + eps) * weight + bias  (over the last normalized_ndim dims)",
    "grad_x = rstd * (gx - mean(gx) - xhat * mean(gx * xhat)), gx = grad * weight; "
    "grad_weight = sum(grad * xhat); grad_bias = sum(grad)  (over the leading dims)",
    attrs=("normalized_ndim", "eps", "has_weight", "has_bias"), saves=None, library_kernel=True))


# ---- batch norm: statistics per channel (dim 1), over every other dim ------------------------------------

def _channel_dims(ndim: int) -> tuple[int, ...]:
    return (0,) + tuple(range(2, ndim))


def _channel_shape(ndim: int) -> tuple[int, ...]:
    return (1, -1) + (1,) * (ndim - 2)


def _fusable(x, *arrays) -> bool:
    """What nnkernels.c's batch norm takes: float32/float64 ndarrays of one dtype, C-contiguous, x
    with 2 or more dims and some values; the others (g, weight, bias) as the numpy code gets them."""
    return (type(x) is np.ndarray and x.ndim >= 2 and x.size > 0 and x.flags.c_contiguous
            and (x.dtype == np.float32 or x.dtype == np.float64)
            and all(a is None or (type(a) is np.ndarray and a.dtype is x.dtype and a.flags.c_contiguous)
                    for a in arrays))


def _batch_norm_forward(x, *params, training=True, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, running = _split(params, has_weight, has_bias)
    view = _channel_shape(x.ndim)
    if training and kernels.module is not None and _fusable(x, weight, bias) \
            and all(p is None or p.shape == x.shape[1:2] for p in (weight, bias)):
        out = np.empty_like(x)           # the numpy code below in one C pass per channel, the same bits
        kernels.module.batch_norm_forward(x, weight, bias, float(eps), out)
        return out
    if training:
        out = _normalize_forward(x, _channel_dims(x.ndim), _rstd, eps=eps)
    else:
        mean, var = (np.reshape(r, view) for r in running)
        out = _normalize_forward(x, None, _rstd, mean=mean, var=var, eps=eps)
    if weight is not None:
        out = out * np.reshape(weight, view)
    if bias is not None:
        out = out + np.reshape(bias, view)
    return out.astype(x.dtype, copy=False)


def _batch_norm_infer(x, *params, training=True, eps=1e-5, has_weight=True, has_bias=True):
    return Spec(tuple(x.shape), x.dtype)


def _batch_norm_vjp(F, g, x, *params_and_out, training=True, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, running = _split(params_and_out[:-1], has_weight, has_bias)
    ndim = len(x.shape)
    dims, view = _channel_dims(ndim), _channel_shape(ndim)
    if training:
        centered, var = _batch_moments(F, x, dims)
    else:
        centered = F.sub(x, F.reshape(running[0], shape=view))
        var = F.reshape(running[1], shape=view)
    rstd = F.div(1.0, F.sqrt(F.add(var, float(eps))))
    xhat = F.mul(centered, rstd)
    gx = g if weight is None else F.mul(g, F.reshape(weight, shape=view))
    grads = [_batch_stats_input_grad(F, gx, xhat, rstd, dims) if training else F.mul(gx, rstd)]
    if weight is not None:
        grads.append(_param_grad(F, F.mul(g, xhat), dims, weight.shape))
    if bias is not None:
        grads.append(_param_grad(F, g, dims, bias.shape))
    return tuple(grads) + (None,) * len(running)     # running statistics get no gradient, as in PyTorch


def _batch_norm_numpy_vjp(needs, g, x, *params_and_out, training=True, eps=1e-5, has_weight=True, has_bias=True):
    """_batch_norm_vjp (training) on arrays in nnkernels.c, its registered ops' numpy calls in one pass
    per channel (the same bits), or None: the rule above runs."""
    weight, bias, running = _split(params_and_out[:-1], has_weight, has_bias)
    if not (training and kernels.module is not None and _fusable(x, g, weight) and g.shape == x.shape
            and (weight is None or weight.shape == x.shape[1:2])
            and (bias is None or (type(bias) is np.ndarray and bias.dtype is x.dtype))):
        return None
    grad_x = np.empty_like(x)
    grad_w = np.empty(weight.shape, x.dtype) if weight is not None else None
    grad_b = np.empty(bias.shape, x.dtype) if bias is not None else None
    if grad_b is not None and grad_b.shape != x.shape[1:2]:
        return None
    kernels.module.batch_norm_backward(g, x, weight, float(eps), grad_x, grad_w, grad_b)
    grads = (grad_x,) + tuple(a for a in (grad_w, grad_b) if a is not None)
    return grads + (None,) * len(running)


register(OpDef(
    "native_batch_norm", NN, _batch_norm_forward, _batch_norm_infer, _batch_norm_vjp, "NativeBatchNormBackward0",
    "(x - mean) / sqrt(var + eps) * weight + bias  (per channel; the batch's statistics when training, "
    "the running ones in eval)",
    "training: grad_x = rstd * (gx - mean(gx) - xhat * mean(gx * xhat)), gx = grad * weight; "
    "eval: grad_x = gx * rstd; grad_weight = sum(grad * xhat); grad_bias = sum(grad)  (over all but dim 1)",
    attrs=("training", "eps", "has_weight", "has_bias"), saves=None, numpy_vjp=_batch_norm_numpy_vjp))


# ---- group norm: statistics per (sample, group of channels), over the group's channels and positions -----

def _group_norm_forward(x, *params, groups, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, _ = _split(params, has_weight, has_bias)
    n, c = x.shape[:2]
    out = _normalize_forward(x.reshape(n, groups, -1), (2,), _rstd, eps=eps).reshape(x.shape)
    per_channel = (c,) + (1,) * (x.ndim - 2)
    if weight is not None:
        out = out * weight.reshape(per_channel)
    if bias is not None:
        out = out + bias.reshape(per_channel)
    return out.astype(x.dtype, copy=False)


def _group_norm_vjp(F, g, x, *params_and_out, groups, eps=1e-5, has_weight=True, has_bias=True):
    weight, bias, _ = _split(params_and_out[:-1], has_weight, has_bias)
    shape = tuple(x.shape)
    n, c, ndim = shape[0], shape[1], len(shape)
    per_channel = (c,) + (1,) * (ndim - 2)
    centered, var = _batch_moments(F, F.reshape(x, shape=(n, groups, -1)), (2,))
    rstd = F.div(1.0, F.sqrt(F.add(var, float(eps))))
    xhat = F.mul(centered, rstd)                                           # (N, groups, C/groups * positions)
    gx = g if weight is None else F.mul(g, F.reshape(weight, shape=per_channel))
    grads = [F.reshape(_batch_stats_input_grad(F, F.reshape(gx, shape=(n, groups, -1)), xhat, rstd, (2,)),
                       shape=shape)]
    others = (0,) + tuple(range(2, ndim))
    if weight is not None:
        grads.append(_param_grad(F, F.mul(g, F.reshape(xhat, shape=shape)), others, weight.shape))
    if bias is not None:
        grads.append(_param_grad(F, g, others, bias.shape))
    return tuple(grads)


register(OpDef(
    "native_group_norm", NN, _group_norm_forward,
    lambda x, *params, groups, eps=1e-5, has_weight=True, has_bias=True: Spec(tuple(x.shape), x.dtype),
    _group_norm_vjp, "NativeGroupNormBackward0",
    "(x - mean) / sqrt(var + eps) per sample and group of channels, then * weight[c] + bias[c]",
    "grad_x = rstd * (gx - mean(gx) - xhat * mean(gx * xhat)) per group, gx = grad * weight; "
    "grad_weight = sum(grad * xhat); grad_bias = sum(grad)  (over batch and positions)",
    attrs=("groups", "eps", "has_weight", "has_bias"), saves=None))
