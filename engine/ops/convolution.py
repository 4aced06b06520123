"""The general convolution: 1-d and 2-d, stride, padding, dilation, groups, and transposed (with
output_padding), as PyTorch's one `convolution` (its node is ConvolutionBackward0 in every form).

The plain 2-d case (dilation 1, groups 1, not transposed) stays the `conv2d` op of ops/nn.py, which the
code generator lowers specially; everything else is this op, which compiled graphs run as a library
call of its numpy forward. Its backward is made of itself: the input gradient of a convolution is the
transposed convolution of the gradient (and the other way round), and the weight gradient is
`convolution_weight_grad`, whose own vjp is two convolutions again — so second derivatives work too."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import NN, OpDef, Spec, register

_SPATIAL = "xyz"
_KERNEL = "uvw"


def _windows(x, kernel, stride, padding, dilation, out=None):
    """(N, C, *S) -> (N, C, *out, *kernel): every receptive field (a strided view of the padded x)."""
    nd = len(kernel)
    if any(padding):
        x = np.pad(x, ((0, 0), (0, 0)) + tuple((p, p) for p in padding))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    w = np.lib.stride_tricks.sliding_window_view(x, span, axis=tuple(range(2, 2 + nd)))
    w = w[(slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride)
          + tuple(slice(None, None, d) for d in dilation)]
    if out is not None:
        w = w[(slice(None), slice(None)) + tuple(slice(0, o) for o in out)]
    return w


def output_shape(x_shape, w_shape, stride, padding, dilation, groups, transposed, output_padding):
    """The output's shape, with PyTorch's errors for a weight that does not fit the input."""
    n, c = x_shape[:2]
    spatial, kernel = x_shape[2:], w_shape[2:]
    expected = w_shape[0] if transposed else w_shape[1] * groups
    if c != expected:
        what = "transposed=1" if transposed else f"groups={groups}"
        raise RuntimeError(f"Given {what}, weight of size {list(w_shape)}, expected input{list(x_shape)} to have "
                           f"{expected} channels, but got {c} channels instead")
    if transposed:
        sizes = tuple((s - 1) * st - 2 * p + d * (k - 1) + op + 1 for s, st, p, d, k, op
                      in zip(spatial, stride, padding, dilation, kernel, output_padding))
        return (n, w_shape[1] * groups) + sizes
    if w_shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                           f"but got weight of size {list(w_shape)} instead")
    padded = tuple(s + 2 * p for s, p in zip(spatial, padding))
    span = tuple(d * (k - 1) + 1 for k, d in zip(kernel, dilation))
    if any(a < b for a, b in zip(padded, span)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, span))}). Kernel size can't be greater than actual input size")
    return (n, w_shape[0]) + tuple((a - b) // s + 1 for a, b, s in zip(padded, span, stride))


def _forward(x, weight, *bias, stride, padding, dilation, groups, transposed=False, output_padding=None):
    nd = x.ndim - 2
    output_padding = output_padding or (0,) * nd
    shape = output_shape(x.shape, weight.shape, stride, padding, dilation, groups, transposed, output_padding)
    s, k = _SPATIAL[:nd], _KERNEL[:nd]
    n, c, g = x.shape[0], x.shape[1], groups
    kernel = weight.shape[2:]
    if not transposed:
        win = _windows(x, kernel, stride, padding, dilation)
        win = win.reshape((n, g, c // g) + win.shape[2:])
        wg = weight.reshape((g, weight.shape[0] // g) + weight.shape[1:])
        out = np.einsum(f"ngc{s}{k},gdc{k}->ngd{s}", win, wg, optimize=True).reshape(shape)
    else:
        og, spatial = weight.shape[1], x.shape[2:]
        xg = x.reshape((n, g, c // g) + spatial)
        wg = weight.reshape((g, c // g, og) + kernel)
        contrib = np.einsum(f"ngc{s},gcd{k}->ngd{s}{k}", xg, wg, optimize=True)
        full = tuple((si - 1) * st + d * (ki - 1) + 1 + op for si, st, d, ki, op
                     in zip(spatial, stride, dilation, kernel, output_padding))
        grid = np.zeros((n, g, og) + full, dtype=contrib.dtype)
        for offset in np.ndindex(*kernel):     # each kernel tap scatters its products, strided
            where = tuple(slice(o * d, o * d + (si - 1) * st + 1, st)
                          for o, d, si, st in zip(offset, dilation, spatial, stride))
            grid[(slice(None),) * 3 + where] += contrib[(Ellipsis,) + offset]
        crop = tuple(slice(p, f - p) for p, f in zip(padding, full))
        out = grid[(slice(None),) * 3 + crop].reshape(shape)
    out = out.astype(x.dtype, copy=False)
    if bias:
        out = out + bias[0].reshape((-1,) + (1,) * nd)
    return np.ascontiguousarray(out)


def _infer(x, weight, *bias, stride, padding, dilation, groups, transposed=False, output_padding=None):
    nd = len(x.shape) - 2
    return Spec(output_shape(tuple(x.shape), tuple(weight.shape), stride, padding, dilation, groups, transposed,
                             output_padding or (0,) * nd), x.dtype)


def _fitting_output_padding(target, source, weight_shape, stride, padding, dilation):
    """output_padding that makes a transposed convolution of `source` spatial sizes give `target`'s."""
    return tuple(t - ((s - 1) * st - 2 * p + d * (k - 1) + 1) for t, s, k, st, p, d
                 in zip(target, source, weight_shape[2:], stride, padding, dilation))


def _vjp(F, g, x, weight, *bias_and_out, stride, padding, dilation, groups, transposed=False, output_padding=None):
    common = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    if not transposed:
        op = _fitting_output_padding(tuple(x.shape[2:]), tuple(g.shape[2:]), tuple(weight.shape), stride, padding,
                                     dilation)
        grad_x = F.convolution(g, weight, transposed=True, output_padding=op, **common)
        grad_w = F.convolution_weight_grad(x, g, weight_shape=tuple(weight.shape), **common)
    else:
        grad_x = F.convolution(g, weight, transposed=False, output_padding=None, **common)
        grad_w = F.convolution_weight_grad(g, x, weight_shape=tuple(weight.shape), **common)
    grads = (grad_x, grad_w)
    if len(bias_and_out) == 2:
        grads += (F.sum(g, dim=(0,) + tuple(range(2, len(g.shape)))),)
    return grads


register(OpDef(
    "convolution", NN, _forward, _infer, _vjp, "ConvolutionBackward0",
    "out[n,o] = bias[o] + sum_c x[n,c] (*) weight[o,c] (dilated, strided, in groups; or transposed)",
    "grad_x = the transposed convolution of grad (a convolution, for a transposed one); "
    "grad_w = convolution_weight_grad(x, grad); grad_b = sum of grad",
    attrs=("stride", "padding", "dilation", "groups", "transposed", "output_padding"), saves=(0, 1)))


def _weight_grad_forward(x, g, stride, padding, dilation, groups, weight_shape):
    """sum over batch and positions of each window of x times the gradient at that position: the weight
    gradient of convolution(x, w) with gradient g (and, arguments swapped, of a transposed one)."""
    nd = x.ndim - 2
    s, k = _SPATIAL[:nd], _KERNEL[:nd]
    n, c = x.shape[:2]
    o = g.shape[1]
    win = _windows(x, weight_shape[2:], stride, padding, dilation, out=g.shape[2:])
    win = win.reshape((n, groups, c // groups) + win.shape[2:])
    gg = g.reshape((n, groups, o // groups) + g.shape[2:])
    out = np.einsum(f"ngc{s}{k},ngd{s}->gdc{k}", win, gg, optimize=True)
    return np.ascontiguousarray(out.reshape(weight_shape).astype(g.dtype, copy=False))


def _weight_grad_vjp(F, gg, x, g, out, stride, padding, dilation, groups, weight_shape):
    # bilinear in (x, g): with gg as a weight, x's part is the transposed convolution of g, g's the convolution of x
    common = {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}
    op = _fitting_output_padding(tuple(x.shape[2:]), tuple(g.shape[2:]), tuple(weight_shape), stride, padding,
                                 dilation)
    return (F.convolution(g, gg, transposed=True, output_padding=op, **common),
            F.convolution(x, gg, transposed=False, output_padding=None, **common))


register(OpDef(
    "convolution_weight_grad", NN, _weight_grad_forward,
    lambda x, g, stride, padding, dilation, groups, weight_shape: Spec(tuple(weight_shape), g.dtype),
    _weight_grad_vjp, "ConvolutionBackwardBackward0", "the gradient of a convolution with respect to its weight",
    "grad_x = transposed convolution of g with grad; grad_g = convolution of x with grad",
    attrs=("stride", "padding", "dilation", "groups", "weight_shape"), saves=(0, 1)))
