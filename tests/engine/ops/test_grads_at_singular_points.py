"""Gradients where a formula meets 0/0 or a tie: PyTorch's masked or one-sided values, not nan or a split."""
from __future__ import annotations

import numpy as np
import pytest

import engine.functional as F
from engine.tensor import Tensor


def leaf(values, dtype=np.float32):
    return Tensor(np.array(values, dtype), requires_grad=True)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_norm_of_a_zero_vector_has_zero_gradient(dtype):
    x = leaf([0.0, 0.0], dtype)
    out = F.norm(x)
    assert out.grad_fn.name == "LinalgVectorNormBackward0"
    out.backward()
    assert x.grad.tolist() == [0.0, 0.0]


def test_norm_over_a_dim_masks_only_the_zero_row():
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    out = F.norm(x, dim=1)
    assert out.tolist() == [0.0, 5.0]
    out.sum().backward()
    np.testing.assert_allclose(x.grad.array, [[0.0, 0.0], [0.6, 0.8]], rtol=1e-6)


def test_norm_second_derivative_graph_is_a_product_as_pytorchs():
    from engine.compat.torch import autograd
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    (g,) = autograd.grad(F.norm(x, dim=1, keepdim=True).sum(), x, create_graph=True)
    assert g.grad_fn.name == "MulBackward0"
    np.testing.assert_allclose(g.array, [[0.0, 0.0], [0.6, 0.8]], rtol=1e-6)


def test_normalize_of_a_zero_row_has_a_finite_gradient():
    x = leaf([[0.0, 0.0], [3.0, 4.0]])
    F.normalize(x).sum().backward()
    assert np.isfinite(x.grad.array).all()
    np.testing.assert_allclose(x.grad.array, [[1e12, 1e12], [0.032, -0.024]], rtol=1e-5)


def test_norm_refuses_integers_and_matrix_norms():
    from engine.errors import UnsupportedError
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        F.norm(Tensor(np.array([1, 2])))
    with pytest.raises(UnsupportedError):
        F.norm(leaf([[1.0]]), p="nuc")


INF = float("inf")


# Values and gradients of linalg.vector_norm(x, p, dim=1) printed by PyTorch 2.13 for a zero row and [3, -4, 0]
# (test_the_stored_norms_are_real_pytorchs runs them through real torch where it is installed).
P_NORMS_AT_A_ZERO_ROW = [
    (1, [0.0, 7.0], [1.0, -1.0, 0.0]),
    (0.5, [0.0, 13.9282], [2.1547, -1.8660, 0.0]),
    (1.5, [0.0, 5.5843], [0.7330, -0.8463, 0.0]),
    (3, [0.0, 4.4979], [0.4449, -0.7908, 0.0]),
    (INF, [0.0, 4.0], [0.0, -1.0, 0.0]),
    (-INF, [0.0, 0.0], [0.0, 0.0, 0.0]),
    (-1, [0.0, 0.0], [0.0, 0.0, 0.0])]


@pytest.mark.parametrize("p,value,grad", P_NORMS_AT_A_ZERO_ROW)
def test_p_norms_and_their_gradients_at_a_zero_row(p, value, grad):
    x = leaf([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]])
    out = F.norm(x, p=p, dim=1)
    np.testing.assert_allclose(out.array, value, rtol=0, atol=1e-4)          # (printed to 4 decimals)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.array, [[0.0, 0.0, 0.0], grad], rtol=0, atol=1e-4)


@pytest.mark.torch
@pytest.mark.parametrize("p,value,grad", P_NORMS_AT_A_ZERO_ROW)
def test_the_stored_norms_are_real_pytorchs(real_torch, p, value, grad):
    x = real_torch.tensor([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]], requires_grad=True)
    out = real_torch.linalg.vector_norm(x, p, dim=1)
    np.testing.assert_allclose(out.detach().numpy(), value, rtol=0, atol=1e-4)
    out.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [[0.0, 0.0, 0.0], grad], rtol=0, atol=1e-4)


def test_the_zero_norm_counts_nonzeros_and_sends_no_gradient():
    x = leaf([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0]])
    out = F.norm(x, p=0, dim=1)
    assert out.tolist() == [0.0, 2.0] and out.requires_grad
    out.sum().backward()
    assert x.grad is None                  # (PyTorch's x.grad stays None too)


def test_the_inf_norm_of_nothing_is_pytorchs_error():
    with pytest.raises(RuntimeError, match="on an empty tensor because"):
        F.norm(Tensor(np.ones((0, 3), np.float32)), p=INF)
    with pytest.raises(RuntimeError, match="on the dimension 0because"):
        F.norm(Tensor(np.ones((0, 3), np.float32)), p=INF, dim=0)
    assert F.norm(Tensor(np.ones((0, 3), np.float32)), p=INF, dim=1).shape == (0,)


def test_normalize_with_other_orders_has_finite_gradients_at_a_zero_row():
    for p in (1.0, 3.0, INF):
        x = leaf([[0.0, 0.0], [3.0, 4.0]])
        F.normalize(x, p=p).sum().backward()
        assert np.isfinite(x.grad.array).all()


def test_clamp_with_tensor_bounds_gives_ties_to_x():
    """Sweep 158: where x equals a bound, PyTorch's clamp sends the whole gradient to x."""
    x, lo, hi = leaf([0.0, 1.0, 2.0]), leaf([1.0, 1.0, 1.0]), leaf([3.0, 3.0, 2.0])
    out = F.clamp(x, min=lo, max=hi)
    assert out.grad_fn.name == "ClampBackward0"
    out.sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == ([0.0, 1.0, 1.0], [1.0, 0.0, 0.0], [0.0, 0.0, 0.0])


def test_clamp_with_max_below_min_gives_the_gradient_to_max():
    x, lo, hi = leaf([5.0, 0.0, 3.5]), leaf([4.0, 4.0, 4.0]), leaf([3.0, 3.0, 3.0])
    out = F.clamp(x, min=lo, max=hi)
    assert out.tolist() == [3.0, 3.0, 3.0]
    out.sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist(), hi.grad.tolist()) == ([0.0, 0.0, 0.0], [0.0, 0.0, 0.0], [1.0, 1.0, 1.0])


@pytest.mark.parametrize("call,expected,x_grad,bound_grad", [
    (lambda x, b: F.clamp_min(x, b), "ClampMinBackward1", [0.0, 1.0, 1.0], [[1.0], [1.0]]),
    (lambda x, b: F.clamp_max(x, b), "ClampMaxBackward1", [1.0, 1.0, 0.0], [[1.0], [1.0]]),
    (lambda x, b: F.clamp(x, max=b), "ClampBackward0", [1.0, 1.0, 0.0], [[1.0], [1.0]])])
def test_one_tensor_bound_broadcasts_and_reduces_its_gradient(call, expected, x_grad, bound_grad):
    x, bound = leaf([0.0, 1.0, 2.0]), leaf([[1.0], [1.0]])
    out = call(x, bound)
    assert out.shape == (2, 3) and out.grad_fn.name == expected
    out.sum().backward()
    assert x.grad.tolist() == [2 * g for g in x_grad] and bound.grad.tolist() == bound_grad


def test_clamp_mixing_a_tensor_and_a_number_bound_is_refused_as_pytorch():
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        F.clamp(leaf([1.0]), min=leaf([0.0]), max=2.0)


def test_clamp_op_is_what_an_in_place_clamp_runs():
    """tensor.py's clamp_/clamp_min_ can run the op clamp_op names in place: the bound gets its gradient."""
    x, lo = leaf([0.0, 1.0, 2.0]), leaf([1.0, 1.0, 1.0])
    y = x * 1
    name, bounds, attrs = F.clamp_op(lo, None)
    y._inplace(name, *bounds, **attrs)
    assert y.grad_fn.name == "ClampBackward0"
    y.sum().backward()
    assert (x.grad.tolist(), lo.grad.tolist()) == ([0.0, 1.0, 1.0], [1.0, 0.0, 0.0])
    assert F.clamp_op(0.5, None, "clamp_min") == ("clamp", (), {"min": 0.5, "max": None, "fn": "clamp_min"})
    assert F.clamp_op(0.5, 1.0) == ("clamp", (), {"min": 0.5, "max": 1.0})
