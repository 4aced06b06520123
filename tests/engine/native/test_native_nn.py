"""engine/native's nnkernels.c against engine/ops' numpy code it replaces, bit for bit: the same
function run with the C loop and with `kernels.use(None)` (the numpy reference) over many shapes,
strides, paddings and both float dtypes, with values whose sums round differently in another order
(a wide spread of magnitudes), signed zeros and non-finite values. A wrong order or a missed term
shows as different bits."""
from __future__ import annotations

import contextlib

import numpy as np
import pytest

import engine.tensor  # noqa: F401  (loads engine/native)
from engine import native
from engine.ops import kernels, nn as nn_ops
from engine.ops.builder import NUMPY
from engine.ops.registry import OPS

module = kernels.module
pytestmark = pytest.mark.skipif(module is None, reason=f"engine/native's kernels: {native.kernels_status()}")


@contextlib.contextmanager
def numpy_only():
    kernels.use(None)
    try:
        yield
    finally:
        kernels.use(module)


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


# ---- batch norm -------------------------------------------------------------------------------------

BATCH_NORM_SHAPES = [(16, 16, 32, 32), (16, 64, 8, 8), (3, 5, 7, 9), (2, 4, 1, 1), (1, 3, 2, 2), (5, 3),
                     (7, 2, 5), (2, 3, 128, 130), (4, 2, 3, 2, 5), (9, 1, 17), (64, 6, 1), (3, 1, 40, 40), (1, 4, 9, 9),
                     (300, 2), (1, 1, 5)]


def batch_norm_both_ways(x, weight, bias, g, eps):
    op = OPS["native_batch_norm"]
    params = tuple(p for p in (weight, bias) if p is not None)
    attrs = {"training": True, "eps": eps, "has_weight": weight is not None, "has_bias": bias is not None}
    results = []
    for fused in (True, False):
        with contextlib.nullcontext() if fused else numpy_only():
            out = op.forward(x, *params, **attrs)
            grads = (op.numpy_vjp((True,) * (1 + len(params)), g, x, *params, out, **attrs) if fused
                     else op.vjp(NUMPY, g, x, *params, out, **attrs))
        assert grads is not None
        results.append((out,) + tuple(grads))
    return results


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", BATCH_NORM_SHAPES)
def test_batch_norm_forward_and_backward_are_the_numpy_ops_bit_for_bit(shape, dtype):
    rng = np.random.default_rng(sum(shape))
    c = shape[1]
    for affine, eps, scale in ((True, 1e-5, 1.0), (False, 1e-3, 1e3), (True, 0.1, 1e-4)):
        x = (rng.standard_normal(shape) * scale + rng.standard_normal((1, c) + (1,) * (len(shape) - 2)) * 3 * scale)
        x = x.astype(dtype)
        g = spread(rng, shape, dtype)
        weight = rng.standard_normal(c).astype(dtype) if affine else None
        bias = rng.standard_normal(c).astype(dtype) if affine else None
        fused, reference = batch_norm_both_ways(x, weight, bias, g, eps)
        assert len(fused) == len(reference)
        for a, b in zip(fused, reference):
            assert a.dtype == b.dtype and a.shape == b.shape, (shape, affine)
            assert a.tobytes() == b.tobytes(), (shape, affine)


def test_batch_norm_of_constant_channels_zeros_and_non_finite_values():
    x = np.zeros((4, 3, 5, 5), np.float32)
    x[:, 1] = -0.0
    x[:, 2] = 7.0
    x[0, 0, 0, 0] = np.inf
    g = np.ones_like(x)
    g[:, 2] = -0.0
    w, b = np.array([1.0, -2.0, 0.5], np.float32), np.array([0.0, -0.0, 1.0], np.float32)
    with np.errstate(all="ignore"):
        fused, reference = batch_norm_both_ways(x, w, b, g, 1e-5)
    for a, r in zip(fused, reference):
        assert np.array_equal(np.isnan(a), np.isnan(r))
        keep = ~np.isnan(r)
        assert a[keep].tobytes() == r[keep].tobytes()


def test_batch_norm_falls_back_to_numpy_for_what_the_kernel_does_not_take():
    op = OPS["native_batch_norm"]
    x = np.ones((2, 3, 4), np.float32)
    attrs = {"training": True, "eps": 1e-5, "has_weight": True, "has_bias": True}
    w64 = np.ones(3, np.float64)
    assert op.numpy_vjp((True,) * 3, x, x, w64, np.zeros(3, np.float32), x, **attrs) is None     # mixed dtypes
    assert op.numpy_vjp((True,) * 3, x[:, :, ::2].copy(), x, np.ones(3, np.float32), np.zeros(3, np.float32),
                        x, **attrs) is None                                                          # g's shape
    assert op.numpy_vjp((True,) * 3, x, x, np.ones(3, np.float32), np.zeros(3, np.float32), x,
                        **{**attrs, "training": False}) is None
    with pytest.raises(ValueError):
        module.batch_norm_forward(x, np.ones(4, np.float32), None, 1e-5, np.empty_like(x))
    with pytest.raises(ValueError):
        module.batch_norm_backward(x, x, None, 1e-5, np.empty((2, 3, 5), np.float32), None, None)


# ---- per-channel moments (reduce.py's mean and var over every dim but 1) ------------------------------

MOMENT_SHAPES = [(1, 3), (2, 5), (7, 4), (8, 3), (9, 2), (127, 3), (128, 2), (129, 3), (1000, 7), (9, 1), (300, 1),
                 (1, 1), (16, 16, 32, 32), (3, 5, 7, 9), (2, 1, 40, 40), (4, 2, 3, 2, 5), (5, 3, 1), (2, 3, 130, 129)]


def moments_both_ways(x, dim, correction, keepdim):
    from engine.ops import reduce as reduce_ops
    found = (reduce_ops._mean_forward(x, dim, keepdim), reduce_ops._var_forward(x, dim, correction, keepdim))
    with numpy_only():
        want = (reduce_ops._mean_forward(x, dim, keepdim), reduce_ops._var_forward(x, dim, correction, keepdim))
    return found, want


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", MOMENT_SHAPES)
def test_mean_and_var_over_all_dims_but_1_are_numpy_s_bit_for_bit(shape, dtype):
    rng = np.random.default_rng(sum(shape) + 3)
    dims = (0,) + tuple(range(2, len(shape)))
    for x in (spread(rng, shape, dtype), (rng.standard_normal(shape) * 1e-3 + 5.0).astype(dtype)):
        for correction in (0, 1, 2):
            if x.size // shape[1] <= correction:
                continue
            for keepdim in (True, False):
                for dim in (dims, tuple(d - len(shape) for d in dims)):
                    found, want = moments_both_ways(x, dim, correction, keepdim)
                    for a, b in zip(found, want):
                        assert a.dtype == b.dtype and a.shape == b.shape, (shape, dim, keepdim)
                        assert a.tobytes() == b.tobytes(), (shape, correction, keepdim)


def test_moments_of_zeros_and_non_finite_values():
    x = np.zeros((6, 4, 3), np.float32)
    x[:, 0] = -0.0
    x[2, 1, 1], x[3, 2, 0], x[0, 3, 2] = np.inf, -np.inf, np.nan
    with np.errstate(all="ignore"):
        found, want = moments_both_ways(x, (0, 2), 0, True)
    for a, b in zip(found, want):
        assert np.array_equal(np.isnan(a), np.isnan(b))
        keep = ~np.isnan(b)
        assert a[keep].tobytes() == b[keep].tobytes()


def test_other_reductions_keep_numpy_s_path():
    from engine.ops import reduce as reduce_ops
    x = np.arange(24, dtype=np.float32).reshape(2, 3, 4)
    for dim in ((0,), (1,), (2,), (0, 1), (1, 2), None):
        assert reduce_ops._per_channel(x, dim, True, 0) is None or dim == (0, 2)
    assert reduce_ops._per_channel(x.transpose(1, 0, 2), (0, 2), True, 0) is None        # not C-contiguous
    assert reduce_ops._per_channel(x.astype(np.int64), (0, 2), True, 0) is None
    assert reduce_ops._per_channel(np.ones((1, 3), np.float32), (0,), True, 1) is None   # no degrees of freedom


POOLS = [  # (n, c, h, w, kernel_size, stride, padding, ceil_mode)
    (2, 3, 8, 8, 2, 2, 0, False), (1, 2, 7, 7, 3, 2, 1, False), (2, 1, 7, 7, 3, 2, 1, True),
    (1, 2, 9, 6, (3, 2), (2, 1), (1, 0), False), (2, 2, 5, 5, 2, 1, 0, False), (1, 3, 6, 7, 3, 3, 1, True),
    (4, 6, 28, 28, 2, 2, 0, False), (1, 1, 4, 4, 4, 4, 2, False),
]


def pool_inputs(rng, shape, dtype):
    """Random values, then ties, signed zeros, NaN and -inf everywhere in a window (where the padded
    -inf positions compete), each as its own image."""
    yield rng.standard_normal(shape).astype(dtype)
    yield rng.integers(-2, 3, shape).astype(dtype) * np.array(0.0 if rng.random() < 0.5 else 1.0, dtype)
    x = rng.integers(-1, 2, shape).astype(dtype)
    x.flat[rng.integers(0, x.size, max(1, x.size // 7))] = np.nan
    yield x
    yield np.full(shape, -np.inf, dtype)
    yield np.where(rng.random(shape) < 0.5, np.array(-0.0, dtype), np.array(0.0, dtype)) + rng.integers(0, 2, shape)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("case", POOLS)
def test_max_pool_values_and_indices_are_numpys_bit_for_bit(case, dtype):
    n, c, h, w, kernel_size, stride, padding, ceil_mode = case
    rng = np.random.default_rng(hash(case) % 2**32)
    for x in pool_inputs(rng, (n, c, h, w), dtype):
        args = (x, kernel_size, stride, padding, ceil_mode)
        found = nn_ops._max_pool_forward(*args), nn_ops._max_pool_indices_forward(*args)
        with numpy_only():
            want = nn_ops._max_pool_forward(*args), nn_ops._max_pool_indices_forward(*args)
        for f, e in zip(found, want):
            assert f.dtype == e.dtype and f.shape == e.shape
            assert f.tobytes() == e.tobytes(), (case, x)


def test_max_pool_refuses_what_it_does_not_take():
    x, out = np.zeros((1, 1, 4, 4), np.float32), np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(ValueError):
        module.max_pool2d(x, 2, 2, 2, 2, 0, 0, out.astype(np.float64), None)      # another dtype
    with pytest.raises(TypeError):
        module.max_pool2d(x.astype(np.int32), 2, 2, 2, 2, 0, 0, out, None)
    with pytest.raises(TypeError):
        module.max_pool2d(x, 2, 2, 2, 2, 0, 0, out, np.zeros((1, 1, 2, 2), np.int32))
    with pytest.raises(ValueError):
        module.max_pool2d(x, 2, 2, 2, 2, 0, 0, np.zeros((1, 1, 5, 2), np.float32), None)   # past the image
    with pytest.raises(ValueError):
        module.max_pool2d(x, 2, 2, 0, 2, 0, 0, out, None)                         # stride 0
