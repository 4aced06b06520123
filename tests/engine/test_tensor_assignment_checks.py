"""`t.requires_grad = v` and `t.grad = g` refuse what PyTorch refuses, in its words; the engine's own
writes (the `_requires_grad` slot, `_grad`) are not checked."""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.tensor import Tensor


def floats(n=3, grad=True):
    return Tensor(np.arange(n, dtype=np.float32), requires_grad=grad)


@pytest.mark.parametrize("value", [1, 0, None, "yes", 1.0, np.bool_(True)])
def test_requires_grad_takes_only_a_bool(value):
    t = floats(grad=False)
    with pytest.raises(RuntimeError, match="^requires_grad must be a bool$"):
        t.requires_grad = value
    assert t.requires_grad is False


def test_deleting_requires_grad_is_refused():
    t = floats()
    with pytest.raises(RuntimeError, match="requires_grad must be a bool"):
        del t.requires_grad
    assert t.requires_grad is True


def test_only_a_leaf_changes_its_flag():
    y = floats() * 2
    with pytest.raises(RuntimeError) as refused_false:
        y.requires_grad = False
    assert str(refused_false.value).endswith("use var_no_grad = var.detach().")
    with pytest.raises(RuntimeError, match=r"^you can only change requires_grad flags of leaf variables\.$"):
        y.requires_grad = True
    assert y.requires_grad is True
    with engine.no_grad():
        leaf = floats() * 2          # made under no_grad: a leaf
    leaf.requires_grad = True
    assert leaf.requires_grad and leaf.is_leaf


def test_integers_cannot_require_grad():
    t = Tensor(np.array([1, 2]))
    with pytest.raises(RuntimeError, match="only Tensors of floating point and complex dtype can require gradients"):
        t.requires_grad = True
    t.requires_grad = False


def test_grad_must_match_the_tensors_size_and_dtype():
    x = floats()
    with pytest.raises(RuntimeError, match=r"^attempting to assign a gradient of size '\[2\]' to a tensor of size '\[3\]'"):
        x.grad = Tensor(np.zeros(2, np.float32))
    with pytest.raises(RuntimeError, match="with dtype 'double' to a tensor with grad_dtype 'Float'"):
        x.grad = Tensor(np.zeros(3, np.float64))
    with pytest.raises(RuntimeError, match="with dtype 'long int' to a tensor with grad_dtype 'Float'"):
        x.grad = Tensor(np.zeros(2, np.int64))          # the dtype is checked before the size
    with pytest.raises(TypeError, match="assigned grad expected to be a Tensor or None but got grad of type int"):
        x.grad = 5
    assert x.grad is None
    x.grad = Tensor(np.ones(3, np.float32))
    assert x.grad.array.tolist() == [1.0, 1.0, 1.0]
    del x.grad
    assert x.grad is None


def test_an_assigned_grad_is_accumulated_into():
    x = floats()
    x.grad = Tensor(np.full(3, 10.0, np.float32))
    (x * 2).sum().backward()
    assert x.grad.array.tolist() == [12.0, 12.0, 12.0]


def test_backward_writes_grads_of_the_leafs_dtype():
    x = Tensor(np.arange(3.0), requires_grad=True)          # float64
    (x * x).sum().backward()
    assert x.grad.array.dtype == np.float64 and x.grad.array.tolist() == [0.0, 2.0, 4.0]
