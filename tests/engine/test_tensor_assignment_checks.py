"""`t.requires_grad = v` and `t.grad = g` refuse what PyTorch refuses, in its words; the engine's own
writes (the `_requires_grad` slot, `_grad`) are not checked. PyTorch 2.13's words are stored once below;
test_the_stored_words_are_real_pytorchs makes each refusal with real torch where it is installed."""
from __future__ import annotations

import re

import numpy as np
import pytest

import engine
from engine.tensor import Tensor


NOT_A_BOOL = "requires_grad must be a bool"
NOT_A_LEAF = "you can only change requires_grad flags of leaf variables."
NOT_A_LEAF_TO_FALSE_ENDS = "use var_no_grad = var.detach()."
INTEGERS_CANNOT = "only Tensors of floating point and complex dtype can require gradients"
GRAD_SIZE = "attempting to assign a gradient of size '[2]' to a tensor of size '[3]'"
GRAD_DOUBLE = "with dtype 'double' to a tensor with grad_dtype 'Float'"
GRAD_LONG = "with dtype 'long int' to a tensor with grad_dtype 'Float'"
GRAD_NOT_A_TENSOR = "assigned grad expected to be a Tensor or None but got grad of type int"
NOT_BOOLS = [1, 0, None, "yes", 1.0, np.bool_(True)]


def floats(n=3, grad=True):
    return Tensor(np.arange(n, dtype=np.float32), requires_grad=grad)


@pytest.mark.parametrize("value", NOT_BOOLS)
def test_requires_grad_takes_only_a_bool(value):
    t = floats(grad=False)
    with pytest.raises(RuntimeError, match=f"^{NOT_A_BOOL}$"):
        t.requires_grad = value
    assert t.requires_grad is False


def test_deleting_requires_grad_is_refused():
    t = floats()
    with pytest.raises(RuntimeError, match=NOT_A_BOOL):
        del t.requires_grad
    assert t.requires_grad is True


def test_only_a_leaf_changes_its_flag():
    y = floats() * 2
    with pytest.raises(RuntimeError) as refused_false:
        y.requires_grad = False
    assert str(refused_false.value).endswith(NOT_A_LEAF_TO_FALSE_ENDS)
    with pytest.raises(RuntimeError, match=f"^{re.escape(NOT_A_LEAF)}$"):
        y.requires_grad = True
    assert y.requires_grad is True
    with engine.no_grad():
        leaf = floats() * 2          # made under no_grad: a leaf
    leaf.requires_grad = True
    assert leaf.requires_grad and leaf.is_leaf


def test_integers_cannot_require_grad():
    t = Tensor(np.array([1, 2]))
    with pytest.raises(RuntimeError, match=INTEGERS_CANNOT):
        t.requires_grad = True
    t.requires_grad = False


def test_grad_must_match_the_tensors_size_and_dtype():
    x = floats()
    with pytest.raises(RuntimeError, match="^" + re.escape(GRAD_SIZE)):
        x.grad = Tensor(np.zeros(2, np.float32))
    with pytest.raises(RuntimeError, match=GRAD_DOUBLE):
        x.grad = Tensor(np.zeros(3, np.float64))
    with pytest.raises(RuntimeError, match=GRAD_LONG):
        x.grad = Tensor(np.zeros(2, np.int64))          # the dtype is checked before the size
    with pytest.raises(TypeError, match=GRAD_NOT_A_TENSOR):
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


# ---- the stored words are real PyTorch's (skipped where torch is absent) ------------------------------

def _refusal(assign):
    with pytest.raises((RuntimeError, TypeError)) as refused:
        assign()
    return f"{refused.type.__name__}: {refused.value}"


@pytest.mark.torch
def test_the_stored_words_are_real_pytorchs(real_torch):
    def set_flag(t, value):
        t.requires_grad = value

    def set_grad(t, value):
        t.grad = value

    def delete_flag(t):
        del t.requires_grad

    floats3 = lambda grad=True: real_torch.zeros(3, requires_grad=grad)    # noqa: E731
    for value in NOT_BOOLS:
        assert _refusal(lambda: set_flag(floats3(False), value)) == f"RuntimeError: {NOT_A_BOOL}", value
    assert _refusal(lambda: delete_flag(floats3())) == f"RuntimeError: {NOT_A_BOOL}"
    assert _refusal(lambda: set_flag(floats3() * 2, True)) == f"RuntimeError: {NOT_A_LEAF}"
    to_false = _refusal(lambda: set_flag(floats3() * 2, False))
    assert to_false.startswith(f"RuntimeError: {NOT_A_LEAF} ") and to_false.endswith(NOT_A_LEAF_TO_FALSE_ENDS)
    assert _refusal(lambda: set_flag(real_torch.tensor([1, 2]), True)) == f"RuntimeError: {INTEGERS_CANNOT}"
    assert _refusal(lambda: set_grad(floats3(), real_torch.zeros(2))).startswith(f"RuntimeError: {GRAD_SIZE}")
    for dtype, words in ((real_torch.float64, GRAD_DOUBLE), (real_torch.int64, GRAD_LONG)):
        assert words in _refusal(lambda: set_grad(floats3(), real_torch.zeros(2, dtype=dtype)))
    assert _refusal(lambda: set_grad(floats3(), 5)) == f"TypeError: {GRAD_NOT_A_TENSOR}"
