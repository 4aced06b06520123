"""engine/native's nnkernels.c against engine/ops' numpy code it replaces, bit for bit: the same
function run with the C loop and with `use_kernels(None)` (the numpy reference) over many shapes,
strides, paddings and both float dtypes, with values whose sums round differently in another order
(a wide spread of magnitudes), signed zeros and non-finite values. A wrong order or a missed term
shows as different bits."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import engine.tensor  # noqa: F401  (loads engine/native)
from engine import native
from engine.ops import nn as nn_ops

module = nn_ops._kernels
pytestmark = pytest.mark.skipif(module is None, reason=f"engine/native's kernels: {native.kernels_status()}")


@contextlib.contextmanager
def numpy_only():
    nn_ops.use_kernels(None)
    try:
        yield
    finally:
        nn_ops.use_kernels(module)


def spread(rng, shape, dtype):
    """Values over many magnitudes (and signs): sums of them round differently in another order."""
    return (rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7, shape)).astype(dtype)


CONVS = [  # (n, c, h, w, o, kh, kw, stride, padding)
    (1, 1, 5, 5, 1, 3, 3, 1, 0), (2, 3, 7, 6, 4, 3, 3, 1, 1), (2, 3, 8, 8, 5, 3, 3, 2, 1),
    (3, 2, 9, 7, 3, 2, 3, (2, 1), (1, 0)), (2, 4, 6, 6, 2, 1, 1, 2, 0), (1, 2, 5, 5, 3, 5, 5, 1, 2),
    (2, 16, 8, 8, 8, 3, 3, 1, 1), (4, 1, 32, 32, 6, 5, 5, 1, 0), (2, 6, 14, 14, 16, 5, 5, 1, 0),
    (2, 3, 11, 9, 4, 4, 2, (3, 2), (2, 1)), (1, 2, 4, 4, 2, 4, 4, 1, 0), (2, 5, 5, 5, 3, 3, 3, 3, 0),
]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", CONVS)
def test_conv2d_input_grad_is_the_numpy_col2im_bit_for_bit(case, dtype):
    n, c, h, w, o, kh, kw, stride, padding = case
    rng = np.random.default_rng(hash(case) % 2**32)
    weight = spread(rng, (o, c, kh, kw), dtype)
    x_shape = (n, c, h, w)
    g_shape = nn_ops._conv_shape(x_shape, weight.shape, stride, padding)
    for g in (spread(rng, g_shape, dtype), rng.standard_normal(g_shape).astype(dtype)):
        found = nn_ops._conv2d_input_grad_forward(g, weight, stride, padding, x_shape)
        with numpy_only():
            want = nn_ops._conv2d_input_grad_forward(g, weight, stride, padding, x_shape)
        assert found.dtype == want.dtype and found.shape == want.shape
        assert found.tobytes() == want.tobytes(), case


def test_col2im_adds_signed_zeros_and_non_finite_values_as_numpy_does():
    rng = np.random.default_rng(3)
    for dtype in (np.float32, np.float64):
        cols = rng.choice(np.array([-0.0, 0.0, 1.0, -1.0, np.inf, -np.inf, 1e30], dtype), (2, 4, 3, 2, 3, 5))
        padded = np.zeros((2, 5, 7, 5), dtype)
        want = padded.copy()
        for u in range(2):
            for v in range(3):
                want[:, u:u + 4, v:v + 2 * 3:2] += cols[:, :, :, u, v]
        with np.errstate(invalid="ignore"):
            module.col2im_add(cols, padded, 1, 2)
        assert np.array_equal(np.isnan(padded), np.isnan(want))
        keep = ~np.isnan(want)
        assert padded[keep].tobytes() == want[keep].tobytes()


def test_col2im_refuses_what_it_does_not_take():
    cols = np.zeros((1, 3, 3, 2, 2, 4), np.float32)
    with pytest.raises(ValueError):
        module.col2im_add(cols, np.zeros((1, 3, 3, 4), np.float32), 1, 1)      # 3 rows need 4
    with pytest.raises(ValueError):
        module.col2im_add(cols, np.zeros((1, 4, 4, 4), np.float64), 1, 1)      # another dtype
    with pytest.raises(TypeError):
        module.col2im_add(cols.astype(np.int32), np.zeros((1, 4, 4, 4), np.int32), 1, 1)
    with pytest.raises(ValueError, match="C-contiguous"):
        module.col2im_add(cols[:, :, ::2], np.zeros((1, 4, 4, 4), np.float32), 1, 1)
    with pytest.raises(ValueError):
        module.col2im_add(cols, np.zeros((1, 4, 4, 4), np.float32), 0, 1)
