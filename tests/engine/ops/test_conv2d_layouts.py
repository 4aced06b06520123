"""conv2d's forward and weight gradient build their im2col matrix from a C-ordered copy whatever the
input's layout (TensorFlow's NHWC tensors arrive as permuted views): a channels-last view gives the
same bits as its contiguous copy, and both equal the convolution written as loops (float64)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.ops import nn

CASES = [((2, 3, 7, 9), (4, 3, 2, 3), (3, 2), (2, 1)), ((1, 5, 8, 8), (6, 5, 3, 3), (1, 1), (0, 0)),
         ((3, 1, 6, 5), (2, 1, 3, 1), (2, 1), (1, 0))]


def _loops(x, w, stride, padding):
    (sh, sw), (ph, pw) = stride, padding
    x = np.pad(x, ((0, 0), (0, 0), (ph, ph), (pw, pw)))
    o, _, kh, kw = w.shape
    oh, ow = (x.shape[2] - kh) // sh + 1, (x.shape[3] - kw) // sw + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = x[:, :, i * sh:i * sh + kh, j * sw:j * sw + kw]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", patch, w)
    return out


@pytest.mark.parametrize("x_shape,w_shape,stride,padding", CASES)
def test_channels_last_views_and_loops_agree(x_shape, w_shape, stride, padding):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(x_shape)
    w = rng.standard_normal(w_shape)
    nhwc = np.ascontiguousarray(x.transpose(0, 2, 3, 1)).transpose(0, 3, 1, 2)     # NCHW view of NHWC memory
    out = nn._conv2d_forward(x, w, stride=stride, padding=padding)
    assert out.flags.c_contiguous
    np.testing.assert_array_equal(nn._conv2d_forward(nhwc, w, stride=stride, padding=padding), out)
    np.testing.assert_allclose(out, _loops(x, w, stride, padding), rtol=1e-12, atol=1e-12)

    g = rng.standard_normal(out.shape)
    grad_w = nn._conv2d_weight_grad_forward(x, g, stride, padding, w_shape)
    np.testing.assert_array_equal(nn._conv2d_weight_grad_forward(nhwc, g, stride, padding, w_shape), grad_w)
    # grad_w[o, c, u, v] = sum over n, i, j of g[n, o, i, j] * x_padded[n, c, i*sh + u, j*sw + v]
    xp = np.pad(x, ((0, 0), (0, 0), (padding[0],) * 2, (padding[1],) * 2))
    expected = np.zeros(w_shape)
    for u in range(w_shape[2]):
        for v in range(w_shape[3]):
            window = xp[:, :, u:u + stride[0] * out.shape[2]:stride[0], v:v + stride[1] * out.shape[3]:stride[1]]
            expected[:, :, u, v] = np.einsum("noij,ncij->oc", g, window)
    np.testing.assert_allclose(grad_w, expected, rtol=1e-12, atol=1e-12)
