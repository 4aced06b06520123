"""engine/native's erf and GELU loops (fastops.c's erf_into, gelu_into, gelu_backward_into) against
the numpy evaluation they replace (engine/ops/special.py's erf_numpy, elementwise.py's GELU forward
and vjp rule run with the C loops switched off): the same bits, a NaN for a NaN (special.same_bits),
for float32 and float64, every range of erf's approximation, odd sizes and 0-d arrays; and GELU's
values and gradients against real torch where it is importable."""
from __future__ import annotations

import sys

import numpy as np
import pytest

import engine
from engine.ops import OPS, special
from engine.ops.builder import NUMPY
from engine.ops.elementwise import _gelu_forward, _gelu_vjp
from engine.tensor import Tensor

tensor_module = sys.modules["engine.tensor"]
pytestmark = pytest.mark.skipif(special._native is None, reason=tensor_module.special_functions)

DTYPES = (np.float32, np.float64)


def inputs(dtype) -> list[np.ndarray]:
    """erf's three ranges (|x| < 1, 1 to 8, 8 and past), both signs, the edges, and odd sizes."""
    rng = np.random.default_rng(3)
    edges = np.array([0.0, -0.0, 1.0, -1.0, np.nextafter(1.0, 0), 8.0, -8.0, np.nextafter(8.0, 0), 1e-310, -1e-310,
                      5e-324, 26.5, -27.0, 40.0, 1e300, -1e300, np.inf, -np.inf, np.nan, -np.nan])
    return [a.astype(dtype) for a in (
        np.linspace(-12.0, 12.0, 24001), rng.normal(0.0, 3.0, 100003), rng.normal(0.0, 0.3, (7, 13, 5)),
        np.geomspace(1e-30, 30.0, 777) * rng.choice([-1.0, 1.0], 777), edges, np.array(0.7), np.array(-9.5),
        np.zeros((3, 0)), rng.normal(0.0, 4.0, 1))]


@pytest.fixture
def numpy_only():
    """Run with the C loops switched off, then put them back."""
    module = special._native
    special.use_native(None)
    try:
        yield
    finally:
        assert special.use_native(module).startswith("C")


def reference(fn, *args):
    module = special._native
    special.use_native(None)
    try:
        return fn(*args)
    finally:
        special.use_native(module)


def same(got, want):
    assert special.same_bits(got, want), (got.dtype, want.dtype, got.shape, want.shape)


@pytest.mark.parametrize("dtype", DTYPES)
def test_erf_is_the_numpy_evaluation(dtype):
    for x in inputs(dtype):
        same(special.erf(x), special.erf_numpy(x))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_forward_is_the_numpy_evaluation(dtype):
    for x in inputs(dtype):
        assert special.gelu(x) is not None
        same(_gelu_forward(x), reference(_gelu_forward, x))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gelu_backward_is_the_rule_on_numpy_arrays(dtype):
    rng = np.random.default_rng(5)
    for x in inputs(dtype):
        g = rng.normal(0.0, 2.0, x.shape).astype(dtype)
        (got,) = OPS["gelu"].numpy_vjp((True,), g, x, None)
        (want,) = reference(_gelu_vjp, NUMPY, g, x, None)
        same(got, want)


def test_float32s_four_lanes_are_the_numpy_evaluation():
    """fastops evaluates float32 erf four lanes at a time (its own exp) and redoes with libm any four
    near a float32 rounding boundary: every float32 around erf's range edges (0, 1, 8), a million
    random ones, through erf, GELU's forward and its gradient."""
    def around(v, count=20000):
        bits = np.float32(v).view(np.int32)
        return np.arange(bits - count, bits + count, dtype=np.int32).view(np.float32)
    rng = np.random.default_rng(17)
    x = np.concatenate([around(1e-30), around(1.0), around(8.0), around(0.5), around(3.0),
                        rng.normal(0.0, 4.0, 1_000_000).astype(np.float32)])
    x = np.concatenate([x, -x])
    g = rng.normal(0.0, 1.0, x.shape).astype(np.float32)
    same(special.erf(x), special.erf_numpy(x))
    same(_gelu_forward(x), reference(_gelu_forward, x))
    same(OPS["gelu"].numpy_vjp((True,), g, x, None)[0], reference(_gelu_vjp, NUMPY, g, x, None)[0])


def test_the_c_loops_take_only_what_they_compute_the_same():
    x = np.linspace(-3, 3, 12, dtype=np.float32)
    assert special.gelu(x.astype(np.float16)) is None                   # float16: numpy
    assert special.gelu(x.reshape(3, 4).T) is None                      # not C-contiguous: numpy
    assert special.gelu_backward(x.astype(np.float64), x) is None       # mixed dtypes: the rule
    assert special.gelu_backward(x[:6], x[6:]) is not None
    assert special.gelu_backward(x[:6], x[6:].reshape(2, 3)) is None    # shapes differ
    assert OPS["gelu"].numpy_vjp((True,), x, x, None, approximate="tanh") is None
    assert special.erf(np.float64(0.5)) == special.erf_numpy(np.float64(0.5))    # a numpy scalar: numpy
    assert special.erf(x.astype(np.float16)).dtype == np.float16


def test_wrong_buffers_are_refused():
    fast = special._native
    x = np.ones(4, np.float32)
    with pytest.raises(TypeError):
        fast.erf_into(x, np.empty(4, np.float64))
    with pytest.raises(ValueError):
        fast.gelu_into(x, np.empty(5, np.float32))
    with pytest.raises(TypeError):
        fast.gelu_backward_into(x, x, x)
    with pytest.raises(TypeError):
        fast.erf_into(np.ones(4, np.int64), np.empty(4, np.int64))


def test_an_autograd_step_through_gelu_is_the_same_both_ways(numpy_only):
    """F.gelu forward and backward through the engine, with the loops off (this test's fixture) and on."""
    rng = np.random.default_rng(11)
    data = rng.normal(0.0, 2.5, (33, 17)).astype(np.float32)

    def step():
        x = Tensor(data.copy(), requires_grad=True)
        y = engine.functional.gelu(x)
        (y * y).sum().backward()
        return y.array, x.grad.array

    off = step()
    module = tensor_module._native
    special.use_native(module)
    try:
        on = step()
    finally:
        special.use_native(None)
    for a, b in zip(on, off):
        same(a, b)


FAR = [np.inf, -np.inf, 27.0, -40.0, 1e38, -1e38]


@pytest.mark.parametrize("dtype", DTYPES)
def test_erf_and_gelu_far_out_are_pytorchs(dtype):
    """erf(±inf) and erf of a huge x are ±1 and GELU(inf) is inf, as PyTorch 2.13 prints them (erf(inf) was
    NaN: erfc's polynomials are inf / inf there); the live check is in test_gelu_is_pytorchs."""
    x = np.array(FAR, dtype)
    for computed in (special.erf(x), reference(special.erf, x)):
        np.testing.assert_array_equal(computed, np.array([1.0, -1.0, 1.0, -1.0, 1.0, -1.0], dtype))
    np.testing.assert_array_equal(special.gelu(x), np.array([np.inf, np.nan, 27.0, 0.0, 1e38, 0.0], dtype))


@pytest.mark.torch
def test_gelu_is_pytorchs(real_torch):
    torch = real_torch
    for dtype in DTYPES:
        x = np.concatenate([np.linspace(-10, 10, 2001), np.random.default_rng(2).normal(0, 3, 5000), FAR]).astype(dtype)
        far = np.array(FAR, dtype)
        np.testing.assert_array_equal(special.erf(far), torch.erf(torch.tensor(far)).numpy())
        g = np.random.default_rng(4).normal(0, 1, x.shape).astype(dtype)
        t = torch.tensor(x, requires_grad=True)
        y = torch.nn.functional.gelu(t)
        y.backward(torch.tensor(g))
        ours_y = special.gelu(x)
        (ours_g,) = OPS["gelu"].numpy_vjp((True,), g, x, None)
        tol = 1e-6 if dtype == np.float32 else 1e-14
        np.testing.assert_allclose(ours_y, y.detach().numpy(), rtol=tol, atol=tol)
        np.testing.assert_allclose(ours_g, t.grad.numpy(), rtol=tol, atol=tol)
