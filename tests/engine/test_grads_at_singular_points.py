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


def test_norm_refuses_integers_and_other_orders():
    from engine.errors import UnsupportedError
    with pytest.raises(RuntimeError, match="Expected a floating point or complex tensor as input. Got Long"):
        F.norm(Tensor(np.array([1, 2])))
    with pytest.raises(UnsupportedError):
        F.norm(leaf([1.0]), p=1)
