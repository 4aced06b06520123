"""reciprocal and `s / x` as PyTorch computes them: 1 / x in x's float type, then a multiply by the
Python scalar (two float32 roundings, MulBackward0 over ReciprocalBackward0); second derivatives
against finite differences; and, where real torch is installed, every value bit for bit against it."""
from __future__ import annotations

import numpy as np
import pytest

import engine.compat.torch as dtorch
from engine.tensor import Tensor
from tests.engine.conftest import central_difference


def _name(node) -> str | None:
    if node is None:
        return None
    name = node.name
    return str(name() if callable(name) else name)


# ---- without torch -----------------------------------------------------------------------------------

@pytest.mark.parametrize("scalar", [2, 1, 2.5, True])
def test_scalar_over_tensor_is_reciprocal_then_mul(scalar):
    x = dtorch.tensor([3.0, 7.0, -0.1], requires_grad=True)
    y = scalar / x
    assert _name(y.grad_fn) == "MulBackward0"
    (first, _), (second, _) = y.grad_fn.next_functions
    assert _name(first) == "ReciprocalBackward0" and second is None
    # the two roundings PyTorch makes, not the one of a true division (they differ for 2.5 / 7)
    want = np.multiply(np.reciprocal(x.array), np.float32(scalar))
    assert y.array.dtype == np.float32 and y.array.tobytes() == want.tobytes()


def test_the_two_roundings_differ_from_one_division_somewhere():
    """So the test above can fail: for some float32 x, (1 / x) * 2.5 is not 2.5 / x."""
    x = np.linspace(1, 50, 2000, dtype=np.float32)
    assert (np.reciprocal(x) * np.float32(2.5) != np.float32(2.5) / x).any()


def test_tensor_divisions_keep_their_div_node():
    m = dtorch.tensor([[0.5, -1.0], [1.5, 3.0]], requires_grad=True)
    assert _name((m / 2).grad_fn) == "DivBackward0"
    assert _name((m / (m + 1)).grad_fn) == "DivBackward0"
    assert _name(dtorch.div(m, 2).grad_fn) == "DivBackward0"


@pytest.mark.parametrize("values,dtype", [([1, -2, 3, 0], "int64"), ([True, False], "bool"), ([7, 3], "uint8")])
def test_scalar_over_an_integer_tensor_is_float32(values, dtype):
    x = dtorch.tensor(values, dtype=getattr(dtorch, dtype))
    for y, scalar in ((2 / x, 2), (2.5 / x, 2.5), (x.reciprocal(), 1), (dtorch.reciprocal(x), 1)):
        assert y.dtype == dtorch.float32
        want = np.multiply(np.reciprocal(np.asarray(values, np.float32)), np.float32(scalar))
        assert y.array.tobytes() == want.tobytes()       # (1 / 0 is inf, as in PyTorch)


def test_reciprocal_of_float64_stays_float64():
    x = dtorch.tensor([3.0, -0.0], dtype=dtorch.float64)
    assert x.reciprocal().dtype == dtorch.float64
    assert x.reciprocal().tolist() == [1 / 3, float("-inf")]


def test_reciprocal_in_place():
    x = dtorch.tensor([2.0, 4.0, 0.5], requires_grad=True)
    y = x * 1
    assert y.reciprocal_() is y and _name(y.grad_fn) == "ReciprocalBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [-0.25, -0.0625, -4.0]
    plain = dtorch.tensor([2.0, 8.0])
    dtorch.reciprocal_(plain)
    assert plain.tolist() == [0.5, 0.125]
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        dtorch.tensor([1, 2]).reciprocal_()


def test_second_derivative_matches_finite_differences():
    """h(x) = <d/dx sum(w * 1/x), v> = sum(-w v / x^2); its gradient through create_graph=True
    (the backward of MulBackward0/NegBackward0 over the saved result) against central differences."""
    rng = np.random.default_rng(3)
    x0 = rng.uniform(0.4, 1.5, (2, 3)) * rng.choice([-1.0, 1.0], (2, 3))
    w, v = rng.standard_normal((2, 3)), rng.standard_normal((2, 3))

    def first(x_array, create_graph):
        x = Tensor(x_array.copy(), requires_grad=True)
        (g,) = dtorch.autograd.grad((x.reciprocal() * Tensor(w)).sum(), x, create_graph=create_graph)
        return x, g

    x, g = first(x0, True)
    assert _name(g.grad_fn) == "MulBackward0"
    (second,) = dtorch.autograd.grad((g * Tensor(v)).sum(), x)
    want = central_difference(lambda a: float(np.sum(first(a, False)[1].array * v)), x0, 1e-5)
    np.testing.assert_allclose(second.array, want, rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(second.array, 2 * w * v / x0 ** 3, rtol=1e-12)


def test_scalar_over_tensor_gradient_in_float64():
    x0 = np.array([0.7, -1.3, 2.0])
    x = Tensor(x0.copy(), requires_grad=True)
    (2.5 / x).sum().backward()
    want = central_difference(lambda a: float(np.sum(2.5 / a)), x0, 1e-6)
    np.testing.assert_allclose(x.grad.array, want, rtol=1e-7)


# ---- against real PyTorch (skipped without it) ---------------------------------------------------------

FLOAT32_VALUES = [3.0, 7.0, -0.1, 1e-3, 123.456, 0.0, -0.0, float("inf"), -float("inf"), float("nan"),
                  1e-40, 3.4e38, 0.3, 1.7, -5.9, 1e-20]
INT64_VALUES = [1, 2, 3, -7, 0, 9, 1 << 40, -(1 << 62), 123456789]


def _same_bits(ours: np.ndarray, theirs) -> bool:
    theirs = theirs.detach().numpy()
    return ours.dtype == theirs.dtype and ours.shape == theirs.shape and ours.tobytes() == theirs.tobytes()


@pytest.mark.parametrize("scalar", [2, 1, 2.5, -3, 0.1, True])
@pytest.mark.parametrize("kind", ["float32", "int64", "float64", "bool"])
def test_values_are_pytorchs_bit_for_bit(real_torch, scalar, kind):
    values = {"float32": FLOAT32_VALUES, "float64": FLOAT32_VALUES, "int64": INT64_VALUES,
              "bool": [True, False]}[kind]
    ours, theirs = dtorch.tensor(values, dtype=getattr(dtorch, kind)), real_torch.tensor(
        values, dtype=getattr(real_torch, kind))
    assert _same_bits((scalar / ours).array, scalar / theirs)
    assert _same_bits(ours.reciprocal().array, theirs.reciprocal())
    assert _same_bits(dtorch.reciprocal(ours).array, real_torch.reciprocal(theirs))


@pytest.mark.parametrize("scalar", [2, 1, 2.5])
def test_gradients_are_pytorchs_bit_for_bit(real_torch, scalar):
    values = [3.0, 7.0, -0.1, 1e-3, 123.456, 0.3, 1.7, -5.9]
    upstream = np.random.default_rng(5).standard_normal(len(values)).astype(np.float32)
    ours = dtorch.tensor(values, requires_grad=True)
    theirs = real_torch.tensor(values, requires_grad=True)
    (scalar / ours).backward(dtorch.tensor(upstream))
    (scalar / theirs).backward(real_torch.tensor(upstream))
    assert _same_bits(ours.grad.array, theirs.grad)
    # second order: the gradient of reciprocal's gradient
    ours2, theirs2 = dtorch.tensor(values, requires_grad=True), real_torch.tensor(values, requires_grad=True)
    (g_ours,) = dtorch.autograd.grad(ours2.reciprocal().sum(), ours2, create_graph=True)
    (g_theirs,) = real_torch.autograd.grad(theirs2.reciprocal().sum(), theirs2, create_graph=True)
    assert _same_bits(g_ours.array, g_theirs)
    (gg_ours,) = dtorch.autograd.grad((g_ours * dtorch.tensor(upstream)).sum(), ours2)
    (gg_theirs,) = real_torch.autograd.grad((g_theirs * real_torch.tensor(upstream)).sum(), theirs2)
    assert _same_bits(gg_ours.array, gg_theirs)
