"""randint and randperm honour requires_grad as PyTorch's factories do: refused for their integer dtype with
PyTorch's words, accepted for a float dtype (it was silently ignored)."""
import numpy as np
import pytest

from engine import creation


@pytest.mark.parametrize("make", [lambda **kw: creation.randint(0, 10, (3,), **kw),
                                  lambda **kw: creation.randperm(3, **kw)])
def test_an_integer_random_tensor_cannot_require_grad(make):
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        make(requires_grad=True)


@pytest.mark.parametrize("make", [lambda **kw: creation.randint(0, 10, (3,), **kw),
                                  lambda **kw: creation.randperm(3, **kw)])
def test_a_float_random_integer_tensor_can_require_grad(make):
    t = make(dtype=np.float32, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.array.dtype == np.float32
