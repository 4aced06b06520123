"""Neural-network ops: softmax/log_softmax, conv2d (im2col), pooling, dropout, the losses and
division by a number (DivBackward1). The other fused families (activation, normalization,
adaptive_pool, sorting) live in files of their own and register when this one is imported.

Their backward helpers (conv2d_input_grad, conv2d_weight_grad, avg_pool2d_backward,
max_pool2d_indices) are registered ops too, so a captured graph's backward is itself a graph.
"""
from __future__ import annotations

import numpy as np

from engine.ops.elementwise import dtype_name
from engine.ops.registry import ELEMENTWISE, NN, OpDef, Spec, register
from engine.ops import kernels
from engine.ops.shapes import normalize_dims

# ---- softmax / log_softmax (numerically stable: shift by the max first) -----------------------------


def _shifted(x, dim):
    x = x if x.dtype.kind == "f" else x.astype(np.float32)
    peak = np.maximum.reduce(x, axis=dim, keepdims=True) if x.size else 0     # = np.max, without its wrapper
    return x - np.where(np.isfinite(peak), peak, 0)


def _softmax_forward(x, dim):
    e = np.exp(_shifted(x, dim))
    e /= np.sum(e, axis=dim, keepdims=True)
    return e


def _log_softmax_forward(x, dim):
    z = _shifted(x, dim)
    return z - np.log(np.add.reduce(np.exp(z), axis=dim, keepdims=True))


def _float_same(x, dim):
    return Spec(tuple(x.shape), x.dtype if x.dtype.kind == "f" else np.dtype(np.float32))


register(OpDef(
    "softmax", NN, _softmax_forward, _float_same,
    lambda F, g, x, out, dim: (F.mul(out, F.sub(g, F.sum(F.mul(g, out), dim=dim, keepdim=True))),),
    "SoftmaxBackward0", "exp(x) / sum(exp(x), dim)", "grad_x = out * (grad - sum(grad * out, dim))",
    attrs=("dim",), saves=("out",), writes_out=True, normalize=True))

def _log_softmax_numpy_vjp(needs, g, x, out, dim):
    """The rule below on float arrays of one dtype, in the same numpy calls (exp's, sum's, mul's
    and sub's forwards), without the builder's dispatch: eager backward runs it per step."""
    if not (type(g) is np.ndarray and g.dtype is out.dtype and out.dtype.kind == "f"):
        return None
    total = np.add.reduce(g, axis=normalize_dims(dim, g.ndim), dtype=g.dtype, keepdims=True)
    grad = np.subtract(g, np.multiply(np.exp(out), total))
    return (grad if type(grad) is np.ndarray else np.asarray(grad),)     # (0-d: ufuncs return scalars)


register(OpDef(
    "log_softmax", NN, _log_softmax_forward, _float_same,
    lambda F, g, x, out, dim: (F.sub(g, F.mul(F.exp(out), F.sum(g, dim=dim, keepdim=True))),),
    "LogSoftmaxBackward0", "x - log(sum(exp(x), dim))", "grad_x = grad - softmax(x) * sum(grad, dim)",
    attrs=("dim",), saves=("out",), numpy_vjp=_log_softmax_numpy_vjp, writes_out=True, normalize=True))


# ---- conv2d via im2col ---------------------------------------------------------------------------------

def _pair(v) -> tuple[int, int]:
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else (int(v[0]), int(v[1]))


def conv_out_size(size: int, kernel: int, stride: int, padding: int) -> int:
    return (size + 2 * padding - kernel) // stride + 1


def _windows(x, kh, kw, stride, padding):
    """(N, C, H, W) -> (N, C, OH, OW, kh, kw): the receptive fields as a strided view of the padded x."""
    (sh, sw), (ph, pw) = stride, padding
    if ph or pw:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    return np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]


def _cols(x, kh, kw, stride, padding):
    """The im2col matrix (N*OH*OW, C*kh*kw), as the transpose of a C-ordered (C*kh*kw, N*OH*OW) copy.

    Copying the windows in (C, kh, kw, N, OH, OW) order reads x along its rows (runs of OW values)
    where the (N, OH, OW, C, kh, kw) order jumped by a row or a channel for every value: the copy
    was most of a large convolution's time. numpy hands the transposed view to BLAS with its
    transpose flag, so the products are the same GEMM, bit for bit. x is made C-ordered first
    (TensorFlow's NHWC input arrives here as a permuted view)."""
    windows = _windows(np.ascontiguousarray(x), kh, kw, stride, padding)
    n, c, oh, ow = windows.shape[:4]
    return windows.transpose(1, 4, 5, 0, 2, 3).reshape(c * kh * kw, n * oh * ow).T


def _conv_shape(x_shape, w_shape, stride, padding):
    n, c, h, w = x_shape
    o, cw, kh, kw = w_shape
    if c != cw:
        raise RuntimeError(f"Given groups=1, weight of size {list(w_shape)}, expected input{list(x_shape)} "
                           f"to have {cw} channels, but got {c} channels instead")
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    oh, ow = conv_out_size(h, kh, sh, ph), conv_out_size(w, kw, sw, pw)
    if oh <= 0 or ow <= 0:
        raise RuntimeError("Calculated output size is too small: kernel size can't be greater than actual "
                           "input size")
    return (n, o, oh, ow)


# How large an im2col matrix may be made at once. A larger one is made a few samples at a time: a
# Keras GAN's Conv2D(1, (7, 7)) over 64x28x28x128 needed a 1.26 GB matrix (past a run's memory), and
# at that size its copies ran at the speed of page faults. The parts are the same products, but
# OpenBLAS may round a GEMM of fewer rows differently (and the weight gradient sums its parts), so
# only a convolution past the bound is split: every smaller one keeps its one GEMM and its numbers.
_COLS_BYTES = 64 << 20
_WEIGHT_GRAD_COLS_BYTES = 128 << 20
_COL2IM_BYTES = 16 << 20       # the input gradient's columns, added back while they are in cache


def _samples_at_once(n: int, sample_bytes: int, budget: int) -> int:
    return max(1, min(n, budget // max(1, sample_bytes)))


def _conv2d_forward(x, weight, *bias, stride=1, padding=0):
    n, o, oh, ow = _conv_shape(x.shape, weight.shape, stride, padding)
    kh, kw = weight.shape[2:]
    step = _samples_at_once(n, oh * ow * x.shape[1] * kh * kw * x.itemsize, _COLS_BYTES)
    w = weight.reshape(o, -1).T
    if step >= n:
        out = _cols(x, kh, kw, _pair(stride), _pair(padding)) @ w
    else:
        out = np.concatenate([_cols(x[i:i + step], kh, kw, _pair(stride), _pair(padding)) @ w
                              for i in range(0, n, step)])
    if bias:
        out += bias[0]
    return np.ascontiguousarray(out.reshape(n, oh, ow, o).transpose(0, 3, 1, 2))


def _conv2d_vjp_masked(F, needs, g, x, weight, *bias_and_out, stride=1, padding=0):
    grads = (F.conv2d_input_grad(g, weight, stride=stride, padding=padding, input_shape=tuple(x.shape))
             if needs[0] else None,
             F.conv2d_weight_grad(x, g, stride=stride, padding=padding, weight_shape=tuple(weight.shape))
             if needs[1] else None)
    if len(bias_and_out) == 2:
        grads += (F.sum(g, dim=(0, 2, 3)) if needs[2] else None,)
    return grads


def _conv2d_vjp(F, g, x, weight, *bias_and_out, stride=1, padding=0):
    needs = (True,) * (len(bias_and_out) + 1)
    return _conv2d_vjp_masked(F, needs, g, x, weight, *bias_and_out, stride=stride, padding=padding)


register(OpDef(
    "conv2d", NN, _conv2d_forward,
    lambda x, weight, *bias, stride=1, padding=0: Spec(_conv_shape(x.shape, weight.shape, stride, padding),
                                                       x.dtype),
    _conv2d_vjp, "ConvolutionBackward0", "out[n,o] = bias[o] + sum_c x[n,c] (*) weight[o,c]",
    "grad_x = full correlation of grad with the flipped weight; grad_w = x (*) grad; grad_b = sum of grad",
    attrs=("stride", "padding"), saves=(0, 1), saves_for={0: (1,), 1: (0,)}, vjp_masked=_conv2d_vjp_masked))


def _conv2d_input_grad_forward(g, weight, stride, padding, input_shape):
    n, c, h, w = input_shape
    o, _, kh, kw = weight.shape
    (sh, sw), (ph, pw) = _pair(stride), _pair(padding)
    _, _, oh, ow = g.shape
    # col2im in channels-last memory, with the columns in (kh, kw, C) order: each kernel offset then adds
    # runs of C adjacent values into runs of C adjacent values. In (C, kh, kw) order an offset's block
    # was every (kh*kw)-th value, and col2im read the whole matrix once per offset.
    padded = np.zeros((n, h + 2 * ph, w + 2 * pw, c), dtype=np.result_type(g, weight))
    step = _samples_at_once(n, oh * ow * c * kh * kw * padded.itemsize, _COL2IM_BYTES)
    offsets_last = weight.transpose(0, 2, 3, 1).reshape(o, -1)
    for i in range(0, n, step):  # a few samples at a time: their columns are still in cache for col2im
        rows = g[i:i + step]
        cols = rows.transpose(0, 2, 3, 1).reshape(-1, o) @ offsets_last     # (N*OH*OW, kh*kw*C)
        cols = cols.reshape(len(rows), oh, ow, kh, kw, c)
        part = padded[i:i + step]
        if kernels.module is not None and cols.dtype == part.dtype and cols.dtype.kind == "f" and cols.itemsize in (4, 8):
            kernels.module.col2im_add(cols, part, sh, sw)     # the loop below, in one pass
            continue
        for u in range(kh):          # col2im: each kernel offset adds its column block back in place
            for v in range(kw):
                part[:, u:u + sh * oh:sh, v:v + sw * ow:sw] += cols[:, :, :, u, v]
    return np.ascontiguousarray(padded[:, ph:ph + h, pw:pw + w].transpose(0, 3, 1, 2))


register(OpDef(
    "conv2d_input_grad", NN, _conv2d_input_grad_forward,
    lambda g, weight, stride, padding, input_shape: Spec(tuple(input_shape), g.dtype),
    lambda F, gg, g, weight, out, stride, padding, input_shape: (
        F.conv2d(gg, weight, stride=stride, padding=padding),
        F.conv2d_weight_grad(gg, g, stride=stride, padding=padding, weight_shape=tuple(weight.shape))),
    "ConvolutionBackwardBackward0", "the gradient of conv2d with respect to its input (a transposed conv)",
    "grad_g = conv2d(grad, weight); grad_weight = conv2d_weight_grad(grad, g)",
    attrs=("stride", "padding", "input_shape"), saves=(0, 1)))


def _conv2d_weight_grad_forward(x, g, stride, padding, weight_shape):
    o, c, kh, kw = weight_shape
    n, _, oh, ow = g.shape
    step = _samples_at_once(n, oh * ow * c * kh * kw * x.itemsize, _WEIGHT_GRAD_COLS_BYTES)
    out = None
    for i in range(0, max(n, 1), step):      # one GEMM unless the im2col matrix is past _WEIGHT_GRAD_COLS_BYTES
        part = g[i:i + step].transpose(1, 0, 2, 3).reshape(o, -1) @ _cols(x[i:i + step], kh, kw, _pair(stride),
                                                                          _pair(padding))
        out = part if out is None else out + part
    return out.reshape(weight_shape)


register(OpDef(
    "conv2d_weight_grad", NN, _conv2d_weight_grad_forward,
    lambda x, g, stride, padding, weight_shape: Spec(tuple(weight_shape), g.dtype),
    lambda F, gg, x, g, out, stride, padding, weight_shape: (
        F.conv2d_input_grad(g, gg, stride=stride, padding=padding, input_shape=tuple(x.shape)),
        F.conv2d(x, gg, stride=stride, padding=padding)),
    "ConvolutionBackwardBackward0", "the gradient of conv2d with respect to its weight",
    "grad_x = conv2d_input_grad(g, grad); grad_g = conv2d(x, grad)",
    attrs=("stride", "padding", "weight_shape"), saves=(0, 1)))


# ---- pooling ---------------------------------------------------------------------------------------------

def _pool_out(size: int, k: int, s: int, p: int, ceil_mode: bool) -> int:
    """PyTorch's pooling_output_shape: with ceil_mode a last partial window counts, unless it would start
    past the input and its left padding."""
    out = (size + 2 * p - k + (s - 1 if ceil_mode else 0)) // s + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def _pool_shape(shape, kernel_size, stride, padding, ceil_mode=False):
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    if ph > kh // 2 or pw > kw // 2:
        raise RuntimeError("pad should be at most half of effective kernel size")
    oh, ow = _pool_out(shape[-2], kh, sh, ph, ceil_mode), _pool_out(shape[-1], kw, sw, pw, ceil_mode)
    if oh <= 0 or ow <= 0:
        raise RuntimeError("Output size is too small")
    return tuple(shape[:-2]) + (oh, ow)


def _overhang(shape, kernel_size, stride, padding, ceil_mode) -> tuple[int, int]:
    """How far ceil_mode's last windows reach past the padded input (bottom, right)."""
    if not ceil_mode:
        return 0, 0
    oh, ow = _pool_shape(shape, kernel_size, stride, padding, True)[-2:]
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    return (max(0, (oh - 1) * sh + kh - shape[-2] - 2 * ph), max(0, (ow - 1) * sw + kw - shape[-1] - 2 * pw))


def _pool_windows(x, kernel_size, stride, padding, fill, ceil_mode=False):
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    eh, ew = _overhang(x.shape, kernel_size, stride, padding, ceil_mode)
    if ph or pw or eh or ew:
        x = np.pad(x, ((0, 0), (0, 0), (ph, ph + eh), (pw, pw + ew)), constant_values=fill)
    windows = np.lib.stride_tricks.sliding_window_view(x, (kh, kw), axis=(2, 3))[:, :, ::sh, ::sw]
    oh, ow = _pool_shape(x.shape[:2] + (x.shape[2] - 2 * ph - eh, x.shape[3] - 2 * pw - ew), kernel_size, stride,
                         padding, ceil_mode)[-2:]
    return windows[:, :, :oh, :ow]


def _max_pool(x, kernel_size, stride, padding, ceil_mode, with_index: bool):
    """max_pool2d's values, or the flat h * W + w index of each window's winner, by PyTorch's rule
    (ATen's cpu_max_pool): each window clipped to the image (padding and ceil_mode's overhang never
    win), the first maximum wins (a -0.0 before a 0.0 stays -0.0), a NaN beats every number and a
    later NaN an earlier one, a window of -inf gives its first position in the image. In one pass
    of nnkernels.c where it takes the array (numpy reduces a strided view of every window: a third
    of LeNet's step), else the numpy code below: the same bits."""
    shape = _pool_shape(x.shape, kernel_size, stride, padding, ceil_mode)
    if kernels.module is not None and type(x) is np.ndarray and x.ndim == 4 and x.dtype in _NATIVE_FLOATS:
        out = np.empty(shape, x.dtype)
        index = np.empty(shape, np.int64) if with_index else None
        kernels.module.max_pool2d(np.ascontiguousarray(x), *_pair(kernel_size), *_pair(stride), *_pair(padding),
                                  out, index)
        return index if with_index else out
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    h, w = x.shape[-2:]
    oh, ow = shape[-2:]
    flat = _pool_windows(x, kernel_size, stride, padding, -np.inf, ceil_mode).reshape(shape + (kh * kw,))
    nan = np.isnan(flat)
    at = np.where(nan.any(axis=-1), kh * kw - 1 - nan[..., ::-1].argmax(axis=-1), flat.argmax(axis=-1))
    value = np.take_along_axis(flat, at[..., None], axis=-1)[..., 0]
    if not with_index:
        return value
    # each window position's place in the image: (oh, ow, kh * kw)
    rows, cols = np.broadcast_arrays((np.arange(oh)[:, None] * sh - ph + np.arange(kh))[:, None, :, None],
                                     (np.arange(ow)[:, None] * sw - pw + np.arange(kw))[None, :, None, :])
    rows, cols = rows.reshape(oh, ow, kh * kw), cols.reshape(oh, ow, kh * kw)
    inside = (rows >= 0) & (rows < h) & (cols >= 0) & (cols < w)
    at = np.where(value == -np.inf, inside.argmax(axis=-1), at)
    place = rows * w + cols
    return np.take_along_axis(np.broadcast_to(place, flat.shape), at[..., None], axis=-1)[..., 0].astype(np.int64)


_NATIVE_FLOATS = (np.dtype(np.float32), np.dtype(np.float64))


def _max_pool_forward(x, kernel_size, stride, padding=0, ceil_mode=False):
    return _max_pool(x, kernel_size, stride, padding, ceil_mode, with_index=False)


def _max_pool_vjp(F, g, x, out, kernel_size, stride, padding=0, ceil_mode=False):
    n, c, h, w = x.shape
    extra = {"ceil_mode": True} if ceil_mode else {}
    index = F.max_pool2d_indices(x, kernel_size=kernel_size, stride=stride, padding=padding, **extra)
    oh, ow = out.shape[2:]
    flat = F.gather_backward(F.reshape(g, shape=(n, c, oh * ow)), F.reshape(index, shape=(n, c, oh * ow)),
                             dim=2, shape=(n, c, h * w))
    return (F.reshape(flat, shape=tuple(x.shape)),)


register(OpDef(
    "max_pool2d", NN, _max_pool_forward,
    lambda x, kernel_size, stride, padding=0, ceil_mode=False: Spec(
        _pool_shape(x.shape, kernel_size, stride, padding, ceil_mode), x.dtype),
    _max_pool_vjp, "MaxPool2DWithIndicesBackward0", "max over each kernel window",
    "grad_x = grad routed to the position of each window's max",
    attrs=("kernel_size", "stride", "padding", "ceil_mode"), saves=(0, "out")))


def _max_pool_indices_forward(x, kernel_size, stride, padding=0, ceil_mode=False):
    return _max_pool(x, kernel_size, stride, padding, ceil_mode, with_index=True)


register(OpDef(
    "max_pool2d_indices", NN, _max_pool_indices_forward,
    lambda x, kernel_size, stride, padding=0, ceil_mode=False: Spec(
        _pool_shape(x.shape, kernel_size, stride, padding, ceil_mode), np.dtype(np.int64)),
    None, "", "flat h*w index of each window's max", "indices have no gradient", differentiable=False,
    attrs=("kernel_size", "stride", "padding", "ceil_mode"), saves=()))


def _avg_divisor(shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override, dtype):
    """Each window's divisor, as PyTorch counts it: the window clipped to the padded input (count_include_pad)
    or to the input itself; ceil_mode's overhang is never counted. A number where every window has the same."""
    if divisor_override:
        return dtype.type(divisor_override)
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    if not ceil_mode and (count_include_pad or (ph == 0 and pw == 0)):
        return dtype.type(kh * kw)
    h, w = shape[-2:]
    eh, ew = _overhang(shape, kernel_size, stride, padding, ceil_mode)
    counted = np.zeros((h + 2 * ph + eh, w + 2 * pw + ew), dtype)
    if count_include_pad:
        counted[:h + 2 * ph, :w + 2 * pw] = 1
    else:
        counted[ph:ph + h, pw:pw + w] = 1
    oh, ow = _pool_shape(shape, kernel_size, stride, padding, ceil_mode)[-2:]
    windows = np.lib.stride_tricks.sliding_window_view(counted, (kh, kw))[::sh, ::sw][:oh, :ow]
    return windows.sum(axis=(2, 3)).astype(dtype)


def _avg_pool_forward(x, kernel_size, stride, padding=0, ceil_mode=False, count_include_pad=True,
                      divisor_override=None):
    _pool_shape(x.shape, kernel_size, stride, padding, ceil_mode)
    windows = _pool_windows(x, kernel_size, stride, padding, 0, ceil_mode)
    if not ceil_mode and count_include_pad and not divisor_override:
        return windows.mean(axis=(4, 5)).astype(x.dtype, copy=False)
    divisor = _avg_divisor(x.shape, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
                           x.dtype)
    return (windows.sum(axis=(4, 5)) / divisor).astype(x.dtype, copy=False)


_AVG_OPTIONS = ("ceil_mode", "count_include_pad", "divisor_override")


def _options(ceil_mode, count_include_pad, divisor_override) -> dict:
    """The non-default pooling options only (a plain pool's attrs stay what they were)."""
    given = {"ceil_mode": ceil_mode, "count_include_pad": count_include_pad, "divisor_override": divisor_override}
    default = {"ceil_mode": False, "count_include_pad": True, "divisor_override": None}
    return {k: v for k, v in given.items() if v != default[k]}


register(OpDef(
    "avg_pool2d", NN, _avg_pool_forward,
    lambda x, kernel_size, stride, padding=0, ceil_mode=False, count_include_pad=True, divisor_override=None: Spec(
        _pool_shape(x.shape, kernel_size, stride, padding, ceil_mode), x.dtype),
    lambda F, g, x, out, kernel_size, stride, padding=0, ceil_mode=False, count_include_pad=True,
    divisor_override=None: (
        F.avg_pool2d_backward(g, kernel_size=kernel_size, stride=stride, padding=padding, input_shape=tuple(x.shape),
                              **_options(ceil_mode, count_include_pad, divisor_override)),),
    "AvgPool2DBackward0", "mean over each kernel window (padding counted)",
    "grad_x = each window's grad spread evenly over the window",
    attrs=("kernel_size", "stride", "padding") + _AVG_OPTIONS, saves=()))


def _avg_pool_backward_forward(g, kernel_size, stride, padding, input_shape, ceil_mode=False, count_include_pad=True,
                               divisor_override=None):
    (kh, kw), (sh, sw), (ph, pw) = _pair(kernel_size), _pair(stride), _pair(padding)
    n, c, h, w = input_shape
    oh, ow = g.shape[2:]
    eh, ew = _overhang(input_shape, kernel_size, stride, padding, ceil_mode)
    padded = np.zeros((n, c, h + 2 * ph + eh, w + 2 * pw + ew), dtype=g.dtype)
    share = g / _avg_divisor(input_shape, kernel_size, stride, padding, ceil_mode, count_include_pad,
                             divisor_override, g.dtype)
    for u in range(kh):
        for v in range(kw):
            padded[:, :, u:u + sh * oh:sh, v:v + sw * ow:sw] += share
    return padded[:, :, ph:ph + h, pw:pw + w]


register(OpDef(
    "avg_pool2d_backward", NN, _avg_pool_backward_forward,
    lambda g, kernel_size, stride, padding, input_shape, ceil_mode=False, count_include_pad=True,
    divisor_override=None: Spec(tuple(input_shape), g.dtype),
    lambda F, gg, g, out, kernel_size, stride, padding, input_shape, ceil_mode=False, count_include_pad=True,
    divisor_override=None: (
        F.avg_pool2d(gg, kernel_size=kernel_size, stride=stride, padding=padding,
                     **_options(ceil_mode, count_include_pad, divisor_override)),),
    "AvgPool2DBackwardBackward0", "each window's value spread evenly over the window",
    "grad_g = avg_pool2d(grad)", attrs=("kernel_size", "stride", "padding", "input_shape") + _AVG_OPTIONS,
    saves=()))


# ---- dropout: deterministic given its mask --------------------------------------------------------------
# PyTorch's CPU dropout is input * (noise / (1 - p)) with noise a bernoulli tensor: MulBackward0.
# (NativeDropoutBackward0 is the fused kernel's node, used on GPUs.)

def _dropout_scale(p: float) -> float:
    return 0.0 if p >= 1 else 1.0 / (1.0 - p)


register(OpDef(
    "dropout", ELEMENTWISE,
    lambda x, mask, p: x * mask.astype(x.dtype, copy=False) * x.dtype.type(_dropout_scale(p)),
    lambda x, mask, p: Spec(tuple(np.broadcast_shapes(x.shape, mask.shape)), x.dtype),
    lambda F, g, x, mask, out, p: (F.mul(F.mul(g, mask), _dropout_scale(p)), None),
    "MulBackward0", "x * mask / (1 - p)", "grad_x = grad * mask / (1 - p)",
    attrs=("p",), saves=(1,), random_mask_input=1))


# ---- losses: one op each (so the loss prints PyTorch's grad_fn), vjps made of registered ops -------------

def _reduce(loss, reduction, denominator=None):
    if reduction == "none":
        return loss
    total = np.add.reduce(loss, axis=None)      # = np.sum(loss), without its Python wrapper
    if reduction == "sum":
        return total
    if reduction == "mean":
        return total / (loss.dtype.type(loss.size) if denominator is None else denominator)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduced_spec(shape, dtype, reduction):
    return Spec(tuple(shape) if reduction == "none" else (), dtype)


def _scale_grad(F, g, reduction, n):
    """The incoming gradient per element: g itself ('none'/'sum' broadcast) or g / n for 'mean'."""
    return F.div(g, float(max(n, 1))) if reduction == "mean" else g


def _mse_forward(a, b, reduction="mean"):
    d = a - b
    return _reduce(d * d, reduction)


def _mse_vjp(F, g, a, b, out, reduction="mean"):
    n = int(np.prod(np.broadcast_shapes(tuple(a.shape), tuple(b.shape)), dtype=np.int64))
    scale = F.mul(_scale_grad(F, g, reduction, n), 2.0)
    # PyTorch runs mse_loss_backward for each side with the operands swapped: 2 (b - a) grad / n for
    # b, not -grad_a, so a difference of zero gives 0. there, not -0.
    return F.mul(F.sub(a, b), scale), F.mul(F.sub(b, a), scale)


register(OpDef(
    "mse_loss", NN, _mse_forward,
    lambda a, b, reduction="mean": _reduced_spec(np.broadcast_shapes(a.shape, b.shape), a.dtype, reduction),
    _mse_vjp, "MseLossBackward0", "mean((a - b)^2)", "grad_a = 2 (a - b) grad / n; grad_b = 2 (b - a) grad / n",
    attrs=("reduction",), saves=(0, 1)))


def _nll_parts(logp, target, weight, ignore_index):
    class_dim = 1 if logp.ndim >= 2 else 0
    valid = target != ignore_index
    safe = np.where(valid, target, 0)
    # (ufunc.reduce is what safe.min() and safe.max() call, minus their Python wrappers)
    if safe.size and (np.minimum.reduce(safe, axis=None) < 0
                      or np.maximum.reduce(safe, axis=None) >= logp.shape[class_dim]):
        raise IndexError(f"Target {int(safe.max())} is out of bounds.")
    if logp.ndim >= 2:
        # logp[n, safe[n, ...], ...]: take_along_axis's result, by direct fancy indexing
        n = safe.ndim
        grids = [np.arange(size).reshape((1,) * i + (size,) + (1,) * (n - i - 1)) for i, size in enumerate(safe.shape)]
        picked = logp[tuple(grids[:class_dim] + [safe] + grids[class_dim:])]
    else:
        picked = np.take_along_axis(logp, np.expand_dims(safe, class_dim), class_dim).squeeze(class_dim)
    if weight is None:
        return picked, valid.astype(logp.dtype)        # = ones * valid
    w = weight[safe] * valid
    return picked, w.astype(logp.dtype, copy=False)


def _nll_forward(logp, target, *weight, reduction="mean", ignore_index=-100):
    picked, w = _nll_parts(logp, target, weight[0] if weight else None, ignore_index)
    return _reduce(-w * picked, reduction, denominator=np.add.reduce(w, axis=None))


def _nll_vjp(F, g, logp, target, *weight_and_out, reduction="mean", ignore_index=-100):
    class_dim = 1 if len(logp.shape) >= 2 else 0
    valid = F.ne(target, ignore_index)
    safe = F.where(valid, target, 0)
    w = F.to_dtype(valid, dtype=dtype_name(logp))         # 1 for counted targets, 0 for ignored ones
    if len(weight_and_out) == 2:
        w = F.mul(w, F.index(weight_and_out[0], safe, positions=(0,)))
    coeff = F.neg(w)
    if reduction == "mean":
        coeff = F.div(coeff, F.sum(w))
    per_sample = F.mul(g, coeff)
    grad = F.gather_backward(F.unsqueeze(per_sample, dim=class_dim), F.unsqueeze(safe, dim=class_dim),
                             dim=class_dim, shape=tuple(logp.shape))
    return (grad,) + (None,) * len(weight_and_out)


def _nll_numpy_vjp(needs, g, logp, target, *weight_and_out, reduction="mean", ignore_index=-100):
    """`_nll_vjp` for the classifier's case (2-D float logp, class indices, no weight, a gradient
    of logp's dtype) in the numpy calls its ops make on the NumpyBuilder, without the dispatch of
    ten builder calls per backward step. Other cases: None (the rule runs)."""
    if not (len(weight_and_out) == 1 and logp.ndim == 2 and type(g) is np.ndarray and g.dtype is logp.dtype
            and logp.dtype.kind == "f" and target.dtype == np.int64 and target.ndim == 1):
        return None
    valid = np.not_equal(target, np.asarray(ignore_index, dtype=np.int64))        # F.ne
    safe = np.where(valid, target, np.asarray(0, dtype=np.int64))                 # F.where
    w = valid.astype(logp.dtype)                                                  # F.to_dtype
    coeff = np.negative(w)                                                        # F.neg
    if reduction == "mean":                                                       # F.div(coeff, F.sum(w))
        coeff = np.true_divide(coeff, np.asarray(np.add.reduce(w, axis=None, dtype=w.dtype, keepdims=False)))
    per_sample = np.multiply(g, coeff)                                            # F.mul
    grad = np.zeros(logp.shape, dtype=per_sample.dtype)                           # F.gather_backward:
    grad[np.arange(safe.shape[0]), safe] = per_sample + per_sample.dtype.type(0)  # one index per row
    return (grad, None)


def _nll_infer(logp, target, *weight, reduction="mean", ignore_index=-100):
    return _reduced_spec(target.shape, logp.dtype, reduction)


register(OpDef(
    "nll_loss", NN, _nll_forward, _nll_infer, _nll_vjp,
    lambda logp, target, *w, reduction="mean", ignore_index=-100:
        "NllLoss2DBackward0" if len(logp.shape) > 2 else "NllLossBackward0",
    "-weight[target] * logp[target] (mean over the weights)",
    "grad_logp = -weight[target] * grad / sum(weight) at each target class, 0 elsewhere",
    attrs=("reduction", "ignore_index"), saves=None, numpy_vjp=_nll_numpy_vjp, library_kernel=True))

_LOG_FLOOR = -100.0     # PyTorch clamps log(p) at -100 so that p = 0 or 1 gives a finite loss


def _bce_forward(p, y, weight, reduction="mean"):
    if p.size and (p.min() < 0 or p.max() > 1):
        raise RuntimeError("all elements of input should be between 0 and 1")
    loss = -(y * np.maximum(np.log(p), _LOG_FLOOR) + (1 - y) * np.maximum(np.log1p(-p), _LOG_FLOOR))
    return _reduce(loss * weight, reduction).astype(p.dtype, copy=False)


def _bce_vjp(F, g, p, y, weight, out, reduction="mean"):
    scale = F.mul(_scale_grad(F, g, reduction, _numel(p, y, weight)), weight)
    denom = F.maximum(F.mul(p, F.sub(1.0, p)), 1e-12)
    grad_p = F.mul(scale, F.div(F.sub(p, y), denom))
    grad_y = F.mul(scale, F.sub(F.clamp(F.log(F.sub(1.0, p)), min=_LOG_FLOOR), F.clamp(F.log(p), min=_LOG_FLOOR)))
    return grad_p, grad_y, None


def _numel(*xs) -> int:
    return int(np.prod(np.broadcast_shapes(*(tuple(x.shape) for x in xs)), dtype=np.int64))


register(OpDef(
    "binary_cross_entropy", NN, _bce_forward,
    lambda p, y, weight, reduction="mean": _reduced_spec(p.shape, p.dtype, reduction),
    _bce_vjp, "BinaryCrossEntropyBackward0", "-w (y log p + (1 - y) log(1 - p))",
    "grad_p = w grad (p - y) / (p (1 - p)); grad_y = w grad (log(1 - p) - log p)",
    attrs=("reduction",), saves=(0, 1, 2)))


def _bce_logits_forward(x, y, weight, pos_weight, reduction="mean"):
    softplus_neg = np.logaddexp(0, -x)                      # -log sigmoid(x), stable
    loss = (1 - y) * x + (1 + (pos_weight - 1) * y) * softplus_neg
    return _reduce(loss * weight, reduction).astype(x.dtype, copy=False)


def _bce_logits_vjp(F, g, x, y, weight, pos_weight, out, reduction="mean"):
    scale = F.mul(_scale_grad(F, g, reduction, _numel(x, y, weight, pos_weight)), weight)
    lift = F.add(F.mul(F.sub(pos_weight, 1.0), y), 1.0)             # 1 + (pos_weight - 1) y
    grad_x = F.mul(scale, F.sub(F.sub(1.0, y), F.mul(lift, F.sub(1.0, F.sigmoid(x)))))
    grad_y = F.mul(scale, F.sub(F.mul(F.sub(pos_weight, 1.0), F.softplus(F.neg(x), beta=1.0, threshold=20.0)), x))
    return grad_x, grad_y, None, None


register(OpDef(
    "binary_cross_entropy_with_logits", NN, _bce_logits_forward,
    lambda x, y, weight, pos_weight, reduction="mean": _reduced_spec(x.shape, x.dtype, reduction),
    _bce_logits_vjp, "BinaryCrossEntropyWithLogitsBackward0",
    "w ((1 - y) x + (1 + (pw - 1) y) log(1 + exp(-x)))", "grad_x = w grad (sigmoid(x) - y) (with pos_weight pw = 1)",
    attrs=("reduction",), saves=(0, 1, 2, 3)))


# ---- smooth L1 and Huber: quadratic near 0, linear beyond a threshold ------------------------------------

def _robust_forward(a, b, reduction, threshold, square_divisor, linear_scale):
    """Per element, z = |a - b|: 0.5 z^2 / square_divisor where z < threshold, else
    linear_scale (z - threshold / 2). Smooth L1: square_divisor = beta, linear_scale = 1; Huber:
    square_divisor = 1, linear_scale = delta (PyTorch's two forward formulas, term for term)."""
    z = np.abs(a - b)
    kind = z.dtype.type
    quadratic = kind(0.5) * z * z
    if square_divisor != 1:
        quadratic = quadratic / kind(square_divisor)
    linear = z - kind(0.5) * kind(threshold)
    if linear_scale != 1:
        linear = kind(linear_scale) * linear
    return _reduce(np.where(z < threshold, quadratic, linear), reduction)


def _robust_vjp(F, g, a, b, reduction, slope_limit, divide_by):
    """The gradient of either loss per element is clamp(d / divide_by, -limit, limit) (d / beta for
    smooth L1 clamped at 1; d clamped at delta for Huber), times the incoming gradient."""
    n = _numel(a, b)
    d = F.sub(a, b)
    if divide_by != 1:
        d = F.div(d, float(divide_by))
    grad = F.mul(F.clamp(d, min=-float(slope_limit), max=float(slope_limit)), _scale_grad(F, g, reduction, n))
    return grad, F.neg(grad)


def _robust_infer(a, b, reduction="mean", **threshold):
    return _reduced_spec(np.broadcast_shapes(a.shape, b.shape), np.result_type(a.dtype, b.dtype), reduction)


register(OpDef(
    "smooth_l1_loss", NN,
    lambda a, b, reduction="mean", beta=1.0: _robust_forward(a, b, reduction, beta, beta, 1.0),
    _robust_infer,
    lambda F, g, a, b, out, reduction="mean", beta=1.0: _robust_vjp(F, g, a, b, reduction, 1.0, beta),
    "SmoothL1LossBackward0", "0.5 (a - b)^2 / beta if |a - b| < beta, else |a - b| - beta / 2",
    "grad_a = clamp((a - b) / beta, -1, 1) grad (/ n for the mean); grad_b = -grad_a",
    attrs=("reduction", "beta"), saves=(0, 1)))

register(OpDef(
    "huber_loss", NN,
    lambda a, b, reduction="mean", delta=1.0: _robust_forward(a, b, reduction, delta, 1.0, delta),
    _robust_infer,
    lambda F, g, a, b, out, reduction="mean", delta=1.0: _robust_vjp(F, g, a, b, reduction, delta, 1.0),
    "HuberLossBackward0", "0.5 (a - b)^2 if |a - b| < delta, else delta (|a - b| - delta / 2)",
    "grad_a = clamp(a - b, -delta, delta) grad (/ n for the mean); grad_b = -grad_a",
    attrs=("reduction", "delta"), saves=(0, 1)))


# ---- division by a number: what PyTorch's C++ losses do (at::div(tensor, scalar): DivBackward1) ----------
# A Python `x / 2` is DivBackward0 in PyTorch (the 2 becomes a tensor); inside its C++ losses the
# divisor stays a Scalar, whose backward node is DivBackward1. The engine's losses that PyTorch
# composes that way divide with this op so their printed grad_fn is PyTorch's. (Pointwise: compiled,
# it fuses into the loops around it.)

def _div_scalar_forward(x, divisor):
    x = x if x.dtype.kind == "f" else x.astype(np.float32)
    return x / x.dtype.type(divisor)


register(OpDef(
    "div_scalar", ELEMENTWISE, _div_scalar_forward,
    lambda x, divisor: Spec(tuple(x.shape), x.dtype if x.dtype.kind == "f" else np.dtype(np.float32)),
    lambda F, g, x, out, divisor: (F.div_scalar(g, divisor=divisor),),
    "DivBackward1", "x / divisor (a number)", "grad_x = grad / divisor", attrs=("divisor",), saves=()))


# The fused ops of other files register on import (engine/ops/__init__.py imports this family).
from engine.ops import activation, adaptive_pool, normalization, sorting  # noqa: E402,F401
