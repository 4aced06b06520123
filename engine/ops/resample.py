"""F.pad (constant, reflect, replicate, circular) and F.interpolate (nearest, nearest-exact, linear,
bilinear and bicubic, with or without align_corners), each with its adjoint as an op of its own.

Both are separable: along each padded or resized dim, output position j reads input position(s) given
by an index map (and, interpolating, two weights). The forward gathers along each dim in turn (the
last dim first, the order PyTorch's bilinear kernel multiplies in); the backward scatter-adds the
gradient back through the same maps, and its own vjp is the forward again (both are linear).
Bicubic reads four inputs per output with Keys' weights; its backward adds each output's 16
contributions in ATen's order rather than dim by dim. Bicubic is within a few ulps of PyTorch's
(its x86 build fuses the multiply-adds into FMAs), not bit for bit."""
from __future__ import annotations


import numpy as np

from engine.ops.registry import NN, OpDef, Spec, register

_PAD_NAMES = {"reflect": "ReflectionPad{n}DBackward0", "replicate": "ReplicationPad{n}DBackward0",
              "circular": "CopySlices", "constant": "ConstantPadNdBackward0"}
_NUMPY_MODE = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def pad_index_map(n: int, left: int, right: int, mode: str) -> np.ndarray:
    """For each output position along one dim, the input position it copies (-1: the constant)."""
    if mode == "constant":
        index = np.concatenate([np.full(max(left, 0), -1), np.arange(n), np.full(max(right, 0), -1)])
        return index[max(-left, 0):len(index) - max(-right, 0)].astype(np.int64)
    return np.pad(np.arange(n), (left, right), mode=_NUMPY_MODE[mode]).astype(np.int64)


def _pairs(ndim: int, pad) -> list[tuple[int, int, int]]:
    """(dim, left, right) for each padded dim: pad lists the last dim first, as F.pad takes it."""
    return [(ndim - 1 - i, int(pad[2 * i]), int(pad[2 * i + 1])) for i in range(len(pad) // 2)]


def _pad_forward(x, pad, mode="constant", value=0.0):
    if mode == "constant":
        widths = [(0, 0)] * x.ndim
        for d, l, r in _pairs(x.ndim, pad):
            widths[d] = (max(l, 0), max(r, 0))
        out = np.pad(x, widths, constant_values=x.dtype.type(value))
        crop = [slice(None)] * x.ndim
        for d, l, r in _pairs(x.ndim, pad):
            crop[d] = slice(max(-l, 0), out.shape[d] - max(-r, 0))
        return np.ascontiguousarray(out[tuple(crop)])
    for d, l, r in _pairs(x.ndim, pad):
        x = np.take(x, pad_index_map(x.shape[d], l, r, mode), axis=d)
    return np.ascontiguousarray(x)


def _pad_shape(shape, pad) -> tuple:
    shape = list(shape)
    for d, l, r in _pairs(len(shape), pad):
        shape[d] += l + r
    return tuple(shape)


def _scatter_back(g, dim: int, index: np.ndarray, size: int, weight=None) -> np.ndarray:
    """The adjoint of np.take(x, index, axis=dim) (times weight): gradient added back per source position."""
    moved = np.moveaxis(g, dim, -1)
    out = np.zeros(moved.shape[:-1] + (size,), dtype=g.dtype)
    keep = index >= 0
    contrib = moved[..., keep] if weight is None else moved[..., keep] * weight[keep].astype(g.dtype)
    np.add.at(out, (Ellipsis, index[keep]), contrib)
    return np.moveaxis(out, -1, dim)


def _pad_backward_forward(g, pad, mode, input_shape):
    for d, l, r in reversed(_pairs(len(input_shape), pad)):
        g = _scatter_back(g, d, pad_index_map(input_shape[d], l, r, mode), input_shape[d])
    return np.ascontiguousarray(g)


register(OpDef(
    "pad", NN, _pad_forward, lambda x, pad, mode="constant", value=0.0: Spec(_pad_shape(x.shape, pad), x.dtype),
    lambda F, g, x, out, pad, mode="constant", value=0.0: (
        F.pad_backward(g, pad=pad, mode=mode, input_shape=tuple(x.shape)),),
    lambda x, pad, mode="constant", value=0.0: _PAD_NAMES[mode].format(n=len(pad) // 2),
    "x padded along its last dims (constant value, reflection, replication or wrap-around)",
    "grad_x = grad cropped, with the padded copies' gradients added to the entries they copied",
    attrs=("pad", "mode", "value"), saves=()))

register(OpDef(
    "pad_backward", NN, _pad_backward_forward,
    lambda g, pad, mode, input_shape: Spec(tuple(input_shape), g.dtype),
    lambda F, gg, g, out, pad, mode, input_shape: (F.pad(gg, pad=pad, mode=mode, value=0.0),),
    "ReflectionPad2DBackwardBackward0", "the gradient of pad: each padded copy's gradient added to its source",
    "grad_g = pad(grad) (the backward is linear)", attrs=("pad", "mode", "input_shape"), saves=()))


# ---- interpolate ----------------------------------------------------------------------------------

def interpolation_map(n_in: int, n_out: int, mode: str, align_corners, scale, dtype) -> tuple:
    """(i0, i1, w0, w1) along one dim: output j = w0[j] * x[i0[j]] + w1[j] * x[i1[j]] (nearest: w1 is None).
    PyTorch's index arithmetic, in the input's float type (float32 for float32, as its kernels)."""
    t = np.float32 if np.dtype(dtype) != np.float64 else np.float64
    j = np.arange(n_out)
    if mode in ("nearest", "nearest-exact"):
        ratio = t(1.0 / scale) if scale else t(n_in) / t(n_out)
        if mode == "nearest" and n_out == n_in:
            i0 = j
        elif mode == "nearest" and n_out == 2 * n_in:
            i0 = j >> 1
        else:
            offset = t(0.5) if mode == "nearest-exact" else t(0.0)
            i0 = np.minimum(np.floor((j.astype(t) + offset) * ratio).astype(np.int64), n_in - 1)
        return i0.astype(np.int64), None, None, None
    src = source_positions(n_in, n_out, align_corners, scale, t, cubic=False)
    i0 = src.astype(np.int64)
    i1 = i0 + (i0 < n_in - 1)
    w1 = (src - i0.astype(t)).astype(t)
    return i0, i1, (t(1) - w1).astype(t), w1


def source_positions(n_in: int, n_out: int, align_corners, scale, t, cubic: bool) -> np.ndarray:
    """Where each output position reads the input, in type `t`: ATen's area_pixel_compute_scale and
    area_pixel_compute_source_index (clamped at 0 except for cubic, whose taps reach past the edge)."""
    j = np.arange(n_out).astype(t)
    if align_corners:
        return (t(n_in - 1) / t(n_out - 1) if n_out > 1 else t(0)) * j
    src = (t(1.0 / scale) if scale else t(n_in) / t(n_out)) * (j + t(0.5)) - t(0.5)
    return src if cubic else np.maximum(src, t(0))


def cubic_map(n_in: int, n_out: int, align_corners, scale, dtype) -> tuple:
    """(indices, weights), each 4 x n_out, along one dim: output j = sum_k weights[k, j] *
    x[indices[k, j]]. ATen's HelperInterpCubic: the source position unclamped (it may be
    negative), its floor and fraction guarded, Keys' cubic convolution with A = -0.75, the four
    taps clamped to the edge; in the input's float type (float32 for float32)."""
    t = np.float32 if np.dtype(dtype) != np.float64 else np.float64
    src = source_positions(n_in, n_out, align_corners, scale, t, cubic=True)
    base = np.minimum(np.floor(src).astype(np.int64), n_in - 1)
    frac = np.minimum(np.maximum(src - base.astype(t), t(0)), t(1)).astype(t)
    a = t(-0.75)

    def near(x):                # cubic_convolution1: |x| <= 1
        return ((a + t(2)) * x - (a + t(3))) * x * x + t(1)

    def far(x):                 # cubic_convolution2: 1 < |x| < 2
        return ((a * x - t(5) * a) * x + t(8) * a) * x - t(4) * a

    rest = (t(1) - frac).astype(t)
    weights = np.stack([far(frac + t(1)), near(frac), near(rest), far(rest + t(1))]).astype(t)
    indices = np.clip(base[None, :] + np.arange(-1, 3)[:, None], 0, n_in - 1)
    return indices, weights


def _bicubic_forward(x, size, align_corners, scales):
    # ATen's generic upsample kernel: along the width, then the height, each output the sum
    # t0 * w0 + t1 * w1 + t2 * w2 + t3 * w3 in that order, in the input's type
    for k in (1, 0):
        d = 2 + k
        indices, weights = cubic_map(x.shape[d], size[k], align_corners, scales[k] if scales else None, x.dtype)
        out = np.take(x, indices[0], axis=d) * weights[0].astype(x.dtype).reshape(_shape_along(x, d))
        for tap in range(1, 4):
            out += np.take(x, indices[tap], axis=d) * weights[tap].astype(x.dtype).reshape(_shape_along(x, d))
        x = out
    return x


def _bicubic_backward(g, input_shape, size, align_corners, scales):
    """ATen's upsample_bicubic2d_backward: for each output pixel in order, its gradient times the
    row weight times the column weight added to each of the 16 input pixels it read (clamped at
    the edges), one after another; np.add.at adds in the same order. (Within a few ulps of
    PyTorch's, not bit for bit: its x86 build contracts these multiply-adds into FMAs.)"""
    n, c, h, w = input_shape
    rows, row_w = cubic_map(h, size[0], align_corners, scales[0] if scales else None, g.dtype)
    cols, col_w = cubic_map(w, size[1], align_corners, scales[1] if scales else None, g.dtype)
    # contributions in the order (channel, out y, out x, tap y, tap x)
    flat = g.reshape(n * c, size[0], size[1])
    values = (flat[:, :, :, None, None] * row_w.T.astype(g.dtype)[None, :, None, :, None]) \
        * col_w.T.astype(g.dtype)[None, None, :, None, :]
    where = rows.T[:, None, :, None] * w + cols.T[None, :, None, :]
    out = np.zeros((n * c, h * w), g.dtype)
    channel = np.arange(n * c)[:, None, None, None, None]
    np.add.at(out, (np.broadcast_to(channel, values.shape), np.broadcast_to(where[None], values.shape)), values)
    return out.reshape(input_shape)


def _shape_along(x, dim):
    return (1,) * dim + (-1,) + (1,) * (x.ndim - dim - 1)


def _interpolate_forward(x, size, mode, align_corners=None, scales=None):
    if mode == "bicubic":
        return np.ascontiguousarray(_bicubic_forward(x, size, align_corners, scales))
    nd = len(size)
    for k in reversed(range(nd)):                       # the last dim first (PyTorch's order of products)
        d = 2 + k
        i0, i1, w0, w1 = interpolation_map(x.shape[d], size[k], mode, align_corners,
                                           scales[k] if scales else None, x.dtype)
        if w1 is None:
            x = np.take(x, i0, axis=d)
        else:
            x = (np.take(x, i0, axis=d) * w0.astype(x.dtype).reshape(_shape_along(x, d))
                 + np.take(x, i1, axis=d) * w1.astype(x.dtype).reshape(_shape_along(x, d)))
    return np.ascontiguousarray(x)


def _interpolate_backward_forward(g, input_shape, size, mode, align_corners=None, scales=None):
    if mode == "bicubic":
        return _bicubic_backward(g, tuple(input_shape), size, align_corners, scales)
    for k in range(len(size)):
        d = 2 + k
        n_in = input_shape[d]
        i0, i1, w0, w1 = interpolation_map(n_in, size[k], mode, align_corners, scales[k] if scales else None,
                                           g.dtype)
        g = _scatter_back(g, d, i0, n_in, w0) + (0 if w1 is None else _scatter_back(g, d, i1, n_in, w1))
    return np.ascontiguousarray(g)


_UPSAMPLE_NAMES = {"nearest": "UpsampleNearest{n}DBackward0", "nearest-exact": "UpsampleNearestExact{n}DBackward0",
                   "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
                   "bicubic": "UpsampleBicubic2DBackward0"}

register(OpDef(
    "interpolate", NN, _interpolate_forward,
    lambda x, size, mode, align_corners=None, scales=None: Spec(tuple(x.shape[:2]) + tuple(size), x.dtype),
    lambda F, g, x, out, size, mode, align_corners=None, scales=None: (
        F.interpolate_backward(g, input_shape=tuple(x.shape), size=size, mode=mode, align_corners=align_corners,
                               scales=scales),),
    lambda x, size, mode, align_corners=None, scales=None: _UPSAMPLE_NAMES[mode].format(n=len(size)),
    "x resampled to `size` along its spatial dims (nearest, or linear between the two nearest inputs)",
    "grad_x = each output's gradient added back to the input(s) it was read from, times their weights",
    attrs=("size", "mode", "align_corners", "scales"), saves=()))

register(OpDef(
    "interpolate_backward", NN, _interpolate_backward_forward,
    lambda g, input_shape, size, mode, align_corners=None, scales=None: Spec(tuple(input_shape), g.dtype),
    lambda F, gg, g, out, input_shape, size, mode, align_corners=None, scales=None: (
        F.interpolate(gg, size=size, mode=mode, align_corners=align_corners, scales=scales),),
    "UpsampleBilinear2DBackwardBackward0", "the gradient of interpolate (its transpose)",
    "grad_g = interpolate(grad) (the backward is linear)",
    attrs=("input_shape", "size", "mode", "align_corners", "scales"), saves=()))
