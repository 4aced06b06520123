"""Autograd behaves as PyTorch's: retain_graph, the second-backward error, grad modes, detach,
leaf/non-leaf, hooks, accumulation, autograd.grad (expected values worked out by hand). PyTorch 2.13's
words and node names stored here are made with real torch where it is installed (the tests marked torch)."""
import numpy as np
import pytest

from engine import autograd, creation
from engine.compat.torch import autograd as torch_autograd
from engine.tensor import Tensor

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")
# (what is refused, PyTorch 2.13's words or their start)
# requires_grad_() of an integer tensor: torch 2.13 says "Only ..." in a fresh process and "only ..." once a
# backward has run (seen here, two paths to the same check); Dagscope says the second
INT_REQUIRES_GRAD = "only Tensors of floating point dtype can require gradients"
NOT_A_LEAF = "you can only change requires_grad flags of leaf variables"
NO_GRAD_FN = "element 0 of tensors does not require grad"
NOT_SCALAR = "grad can be implicitly created only for scalar outputs"
UNUSED = "appears to not have been used in the graph"
ACCUMULATE_GRAD_NAME = "torch::autograd::AccumulateGrad"     # its name(); its class is AccumulateGrad


def _x():
    return creation.tensor([1.0, 2.0, 3.0], requires_grad=True)


def test_second_backward_raises_pytorchs_message():
    x = _x()
    y = (x * x).sum()
    y.backward()
    with pytest.raises(RuntimeError) as err:
        y.backward()
    assert str(err.value) == SECOND_BACKWARD


def test_retain_graph_allows_second_backward_and_grads_accumulate():
    x = _x()
    y = (x * x).sum()
    y.backward(retain_graph=True)
    assert x.grad.array.tolist() == [2.0, 4.0, 6.0]
    y.backward()
    assert x.grad.array.tolist() == [4.0, 8.0, 12.0]


def test_no_grad_and_enable_grad():
    x = _x()
    with autograd.no_grad():
        y = x * 2
        with autograd.enable_grad():
            z = x * 2
    assert not y.requires_grad and y.grad_fn is None
    assert z.requires_grad and z.grad_fn.name == "MulBackward0"

    @autograd.no_grad()
    def f(t):
        return t * 3
    assert not f(x).requires_grad and autograd.is_grad_enabled()


def test_detach_shares_data_and_cuts_the_graph():
    x = _x()
    d = (x * 2).detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    w = x.detach()
    w.array[0] = 10.0
    assert x.array[0] == 10.0


def test_leaf_and_non_leaf_grads():
    x = _x()
    y = x * 2
    y.retain_grad()
    z = x * 3
    (y.sum() + z.sum()).backward()
    assert x.is_leaf and not y.is_leaf
    assert y.grad.array.tolist() == [1.0, 1.0, 1.0]
    assert z.grad is None
    assert x.grad.array.tolist() == [5.0, 5.0, 5.0]


def test_requires_grad_rules():
    with pytest.raises(RuntimeError) as refused:
        creation.tensor([1, 2]).requires_grad_()
    assert str(refused.value) == INT_REQUIRES_GRAD
    y = _x() * 2
    with pytest.raises(RuntimeError, match=NOT_A_LEAF):
        y.requires_grad_(False)
    with pytest.raises(RuntimeError, match=NO_GRAD_FN):
        creation.ones(2).sum().backward()
    with pytest.raises(RuntimeError, match=NOT_SCALAR):
        (_x() * 2).backward()


def test_register_hook_changes_the_gradient():
    x = _x()
    seen = []
    x.register_hook(lambda g: seen.append(g.array.tolist()))
    y = x * 2
    y.register_hook(lambda g: g * 10)
    y.sum().backward()
    assert seen == [[20.0, 20.0, 20.0]] and x.grad.array.tolist() == [20.0, 20.0, 20.0]


def test_backward_with_explicit_gradient():
    x = _x()
    (x * x).backward(creation.tensor([1.0, 0.0, 2.0]))
    assert x.grad.array.tolist() == [2.0, 0.0, 12.0]


def test_autograd_grad_returns_without_accumulating():
    x = _x()
    y = (x * x * x).sum()
    (g,) = torch_autograd.grad(y, x, create_graph=True)
    assert g.array.tolist() == [3.0, 12.0, 27.0] and x.grad is None
    (gg,) = torch_autograd.grad(g.sum(), x)       # second derivative: 6x
    assert gg.array.tolist() == [6.0, 12.0, 18.0]


def test_autograd_grad_unused_input():
    x, w = _x(), _x()
    y = (x * 2).sum()
    with pytest.raises(RuntimeError, match=UNUSED):
        torch_autograd.grad(y, [x, w], retain_graph=True)
    gx, gw = torch_autograd.grad(y, [x, w], allow_unused=True)
    assert gx.array.tolist() == [2.0, 2.0, 2.0] and gw is None


def test_grad_of_broadcast_reduces_to_input_shape():
    a = Tensor(np.ones((2, 3), np.float32), requires_grad=True)
    b = Tensor(np.ones((3,), np.float32), requires_grad=True)
    (a * b).sum().backward()
    assert b.grad.shape == (3,) and b.grad.array.tolist() == [2.0, 2.0, 2.0]


def test_grad_fn_names_and_next_functions():
    x = _x()
    y = (x * 2).sum()
    assert y.grad_fn.name == "SumBackward0"
    mul = y.grad_fn.next_functions[0][0]
    assert mul.name == "MulBackward0"
    assert mul.next_functions[0][0].name == "AccumulateGrad"


def test_each_grad_fn_name_is_a_class_and_name_is_also_a_method():
    """PyTorch has one class per backward function, and grad_fn.name() is a method."""
    x = _x()
    y = (x * 2).sum()
    assert type(y.grad_fn).__name__ == y.grad_fn.name() == "SumBackward0"
    mul = y.grad_fn.next_functions[0][0]
    assert type(mul).__name__ == mul.name() == "MulBackward0"
    assert isinstance(mul, autograd.Node) and type(mul) is not type(y.grad_fn)
    acc = mul.next_functions[0][0]
    assert type(acc).__name__ == "AccumulateGrad"     # (its name() is test_accumulate_grads_name_is_pytorchs)
    assert type((x * 3).grad_fn) is type(mul)        # one class per name, made once


def test_accumulate_grads_name_is_pytorchs():
    """grad_fn.name() of a leaf's sink is PyTorch's C++ name; the engine and the page still call it
    AccumulateGrad (its class name, and what graph printouts say)."""
    acc = (_x() * 2).grad_fn.next_functions[0][0]
    assert acc.name() == ACCUMULATE_GRAD_NAME
    assert acc.name == "AccumulateGrad" and type(acc).__name__ == "AccumulateGrad"


def test_an_inplace_op_renames_the_node_and_keeps_its_fields():
    x = _x()
    y = x * 1
    y.zero_()
    assert type(y.grad_fn).__name__ == y.grad_fn.name == "ZeroBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.array, np.zeros(3, np.float32))


# ---- the stored words and node names are real PyTorch's (skipped where torch is absent) ---------------

@pytest.mark.torch
def test_the_stored_words_and_names_are_real_pytorchs(real_torch):
    def refusal(make):
        with pytest.raises(RuntimeError) as refused:
            make()
        return str(refused.value)

    x = real_torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = (x * x).sum()
    y.backward()
    assert refusal(y.backward) == SECOND_BACKWARD
    assert refusal(lambda: real_torch.tensor([1, 2]).requires_grad_()) == INT_REQUIRES_GRAD   # (after a backward)
    assert refusal(lambda: (x * 2).requires_grad_(False)).startswith(NOT_A_LEAF)
    assert refusal(lambda: real_torch.ones(2).sum().backward()).startswith(NO_GRAD_FN)
    assert refusal(lambda: (x * 2).backward()) == NOT_SCALAR
    w = real_torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    assert UNUSED in refusal(lambda: real_torch.autograd.grad((x * 2).sum(), [x, w]))
    y = (x * 2).sum()
    mul = y.grad_fn.next_functions[0][0]
    acc = mul.next_functions[0][0]
    assert [y.grad_fn.name(), mul.name(), acc.name()] == ["SumBackward0", "MulBackward0", ACCUMULATE_GRAD_NAME]
    assert [type(node).__name__ for node in (y.grad_fn, mul, acc)] == ["SumBackward0", "MulBackward0",
                                                                       "AccumulateGrad"]
    assert type((x * 3).grad_fn) is type(mul)
    z = x * 1
    z.zero_()
    assert type(z.grad_fn).__name__ == z.grad_fn.name() == "ZeroBackward0"
