"""A convolution whose im2col matrix is past nn._COLS_BYTES (nn._WEIGHT_GRAD_COLS_BYTES for the weight
gradient; the input gradient always goes nn._COL2IM_BYTES at a time) is computed a few samples at a
time: the parts must give the convolution of the whole batch (float64, against one part, and against
PyTorch where it is installed), and a forward under the bound must not be split at all (its numbers
stay those of one GEMM)."""
from __future__ import annotations

import numpy as np
import pytest

from engine.ops import nn

CASES = [((5, 3, 7, 9), (4, 3, 2, 3), (3, 2), (2, 1)), ((4, 6, 8, 8), (1, 6, 7, 7), (1, 1), (3, 3)),
         ((3, 2, 6, 5), (2, 2, 4, 4), (2, 2), (0, 0))]


def _all(x, w, g, stride, padding):
    return (nn._conv2d_forward(x, w, stride=stride, padding=padding),
            nn._conv2d_input_grad_forward(g, w, stride, padding, x.shape),
            nn._conv2d_weight_grad_forward(x, g, stride, padding, w.shape))


def _split(monkeypatch, samples: int, x, w, stride, padding):
    """Bounds that let `samples` samples' im2col matrix through at once."""
    oh = nn.conv_out_size(x.shape[2], w.shape[2], stride[0], padding[0])
    ow = nn.conv_out_size(x.shape[3], w.shape[3], stride[1], padding[1])
    sample = oh * ow * w[0].size * x.itemsize
    monkeypatch.setattr(nn, "_COLS_BYTES", samples * sample)
    monkeypatch.setattr(nn, "_WEIGHT_GRAD_COLS_BYTES", samples * sample)
    monkeypatch.setattr(nn, "_COL2IM_BYTES", samples * sample)
    return oh, ow


@pytest.mark.parametrize("samples", [1, 2])
@pytest.mark.parametrize("x_shape,w_shape,stride,padding", CASES)
def test_parts_give_the_whole_batch(monkeypatch, x_shape, w_shape, stride, padding, samples):
    rng = np.random.default_rng(1)
    x, w = rng.standard_normal(x_shape), rng.standard_normal(w_shape)
    oh, ow = _split(monkeypatch, 10 ** 6, x, w, stride, padding)
    g = rng.standard_normal((x_shape[0], w_shape[0], oh, ow))
    whole = _all(x, w, g, stride, padding)
    _split(monkeypatch, samples, x, w, stride, padding)
    parts = _all(x, w, g, stride, padding)
    for got, expected in zip(parts, whole):
        assert got.shape == expected.shape and got.dtype == expected.dtype
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)
    assert parts[0].flags.c_contiguous
    # the input gradient is the forward's adjoint: <conv(x), g> = <x, input_grad(g)>
    np.testing.assert_allclose(np.vdot(parts[0], g), np.vdot(x, parts[1]), rtol=1e-12)
    torch = pytest.importorskip("torch")
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = torch.nn.functional.conv2d(tx, tw, stride=stride, padding=padding)
    out.backward(torch.tensor(g))
    np.testing.assert_allclose(parts[0], out.detach().numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts[1], tx.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(parts[2], tw.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_a_convolution_under_the_bound_is_one_gemm(monkeypatch):
    """Under the bound nothing is sliced: the same bits as the im2col product written out."""
    rng = np.random.default_rng(2)
    x, w = rng.standard_normal((8, 3, 9, 9)).astype(np.float32), rng.standard_normal((4, 3, 3, 3)).astype(np.float32)
    expected = (nn._cols(x, 3, 3, (1, 1), (1, 1)) @ w.reshape(4, -1).T).reshape(8, 9, 9, 4).transpose(0, 3, 1, 2)
    np.testing.assert_array_equal(nn._conv2d_forward(x, w, stride=1, padding=1), expected)


def test_the_gan_layer_is_split_under_the_bound():
    """keras-io's GAN: Conv2D(1, (7, 7)) over 64x28x28x128 float32 had a 1.26 GB im2col matrix."""
    sample = 28 * 28 * 128 * 7 * 7 * 4
    step = nn._samples_at_once(64, sample, nn._COLS_BYTES)
    assert 1 <= step < 64 and step * sample <= nn._COLS_BYTES
    assert nn._samples_at_once(64, 10 ** 12, nn._COLS_BYTES) == 1      # one sample past the bound still runs
