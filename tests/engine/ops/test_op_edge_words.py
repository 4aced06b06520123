"""Edge cases of the movement, index, reduce and elementwise ops as PyTorch 2.13 has them: the words of
their shape and index errors, and the gradients it defines as 0 where the formula divides by zero.
(Expected values were printed by real torch 2.13; where torch is installed, as `make test` installs
it, the tests at the end run the same cases through it.)"""
from __future__ import annotations

import types

import numpy as np
import pytest

import engine.compat.torch as torch


SHAPE_AND_INDEX_ERRORS = [
    (lambda: torch.zeros(2, 3).expand(3, 3),
     "The expanded size of the tensor (3) must match the existing size (2) at non-singleton dimension 0.  "
     "Target sizes: [3, 3].  Tensor sizes: [2, 3]"),
    (lambda: torch.zeros(3).expand(-1, 3),
     "The expanded size of the tensor (-1) isn't allowed in a leading, non-existing dimension 0"),
    (lambda: torch.zeros(2, 3).expand(3),
     "expand(torch.FloatTensor{[2, 3]}, size=[3]): the number of sizes provided (1) must be greater or equal to "
     "the number of dimensions in the tensor (2)"),
    (lambda: torch.zeros(0, 3).reshape(-1, 0),
     "cannot reshape tensor of 0 elements into shape [-1, 0] because the unspecified dimension size -1 can be any "
     "value and is ambiguous"),
    (lambda: torch.zeros(2, 3).reshape(-1, 0), "shape '[-1, 0]' is invalid for input of size 6"),
    (lambda: torch.arange(12.0).reshape(3, 4).gather(1, torch.tensor([[4]])),
     "index 4 is out of bounds for dimension 1 with size 4"),
    (lambda: torch.arange(12.0).reshape(3, 4).gather(1, torch.tensor([[-1]])),
     "index -1 is out of bounds for dimension 1 with size 4"),
    (lambda: torch.arange(12.0).reshape(3, 4).gather(1, torch.tensor([[0.0]])),
     "gather(): Expected dtype int32/int64 for index"),
]


@pytest.mark.parametrize("make,message", SHAPE_AND_INDEX_ERRORS)
def test_the_error_is_pytorchs(make, message):
    with pytest.raises(RuntimeError) as err:
        make()
    assert str(err.value) == message


def test_expand_with_minus_one_keeps_a_size_one_dim():
    assert torch.zeros(1, 3).expand(2, 3, -1, 3).shape == (2, 3, 1, 3)
    assert torch.zeros(0, 3).reshape(-1, 3).shape == (0, 3)


def test_gather_takes_an_int32_index():
    out = torch.arange(12.0).reshape(3, 4).gather(1, torch.tensor([[1]], dtype=torch.int32))
    assert out.tolist() == [[1.0]]


GRADIENTS_DEFINED_AS_ZERO = [
    (lambda t: t.std(), [2.0, 2.0], [0.0, 0.0]),
    (lambda t: t.std(1), [[2.0, 2.0], [1.0, 3.0]], [[0.0, 0.0], [-0.70710678, 0.70710678]]),
    (lambda t: t.std(correction=0), [2.0, 2.0], [0.0, 0.0]),
    (lambda t: t ** torch.tensor([0.0, 2.0]), [0.0, 0.0], [0.0, 0.0]),
    (lambda t: t ** torch.tensor([0.0, 0.5]), [0.0, 0.0], [0.0, np.inf]),
]


@pytest.mark.parametrize("make,value,grad", GRADIENTS_DEFINED_AS_ZERO)
def test_a_gradient_pytorch_defines_as_zero_is_zero(make, value, grad):
    x = torch.tensor(value, requires_grad=True)
    make(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6)


def test_the_exponent_of_a_zero_base_still_gets_its_gradient():
    x = torch.tensor([0.0, 2.0], requires_grad=True)
    y = torch.tensor([0.0, 0.0], requires_grad=True)
    (x ** y).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 0.0])
    np.testing.assert_allclose(y.grad.numpy(), [0.0, np.log(2.0)], rtol=1e-6)


def test_cat_of_no_tensors_is_a_value_error_and_stack_a_runtime_error():
    for empty in ([], ()):
        with pytest.raises(ValueError, match=r"^torch.cat\(\): expected a non-empty list of Tensors$"):
            torch.cat(empty)
    with pytest.raises(RuntimeError, match="^stack expects a non-empty TensorList$"):
        torch.stack([])


@pytest.mark.parametrize("divide", [lambda a, b: a // b, lambda a, b: a % b, torch.remainder, torch.floor_divide])
def test_integer_division_by_zero_raises_as_pytorch(divide):
    for a, b in [(torch.tensor([5, -5]), 0), (torch.tensor([5, 6]), torch.tensor([1, 0])), (5, torch.tensor([0])),
                 (torch.tensor(5, dtype=torch.int32), 0)]:
        if not isinstance(a, torch.Tensor) and divide in (torch.remainder, torch.floor_divide):
            continue
        with pytest.raises(RuntimeError, match="^ZeroDivisionError$"):
            divide(a, b)
    assert divide(torch.tensor([], dtype=torch.long), 0).shape == (0,)     # nothing divided: no error
    assert divide(torch.tensor([5.0]), 0).dtype == torch.float32            # floats give inf/nan, no error


CAT_SIZE_ERRORS = [
    ([(2, 3), (2, 2)], 0, "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 for "
                          "tensor number 1 in the list."),
    ([(2, 3), (3, 3), (1, 2)], 1, "Sizes of tensors must match except in dimension 1. Expected size 2 but got size 3 "
                                  "for tensor number 1 in the list."),
    ([(2, 3), (2, 3), (4, 2)], 0, "Sizes of tensors must match except in dimension 0. Expected size 3 but got size 2 "
                                  "for tensor number 2 in the list."),
    ([(2, 3), (2, 3, 1)], 0, "Tensors must have same number of dimensions: got 2 and 3")]


@pytest.mark.parametrize("tensors,dim,message", CAT_SIZE_ERRORS)
def test_cat_names_the_mismatched_size_and_tensor_as_pytorch(tensors, dim, message):
    with pytest.raises(RuntimeError) as err:
        torch.cat([torch.ones(*shape) for shape in tensors], dim=dim)
    assert str(err.value) == message


def test_cat_leaves_out_empty_1d_tensors_as_pytorch():
    empty, x = torch.zeros(0, requires_grad=True), torch.ones(2, 3, requires_grad=True)
    out = torch.cat([x, empty], 1)
    assert out.shape == (2, 3) and torch.cat([empty, x]).shape == (2, 3)
    (out * torch.arange(6.0).reshape(2, 3)).sum().backward()
    assert x.grad.tolist() == [[0.0, 1.0, 2.0], [3.0, 4.0, 5.0]] and empty.grad.shape == (0,)


WRONG_SHAPE_ASSIGNMENTS = [
    (lambda a: a > 8, (2,), "shape mismatch: value tensor of shape [2] cannot be broadcast to indexing result of "
                            "shape [3]"),
    (lambda a: (slice(None), torch.tensor([0, 1])), (3,), "shape mismatch: value tensor of shape [3] cannot be "
                                                          "broadcast to indexing result of shape [3, 2]"),
    (lambda a: slice(0, 2), (3,), "The expanded size of the tensor (4) must match the existing size (3) at "
                                  "non-singleton dimension 1.  Target sizes: [2, 4].  Tensor sizes: [3]"),
    (lambda a: 0, (2, 4), "expand(torch.FloatTensor{[2, 4]}, size=[4]): the number of sizes provided (1) must be "
                          "greater or equal to the number of dimensions in the tensor (2)")]


@pytest.mark.parametrize("key,value_shape,message", WRONG_SHAPE_ASSIGNMENTS)
def test_assigning_a_value_of_the_wrong_shape_is_pytorchs_error(key, value_shape, message):
    a = torch.arange(12.0).reshape(3, 4)
    with pytest.raises(RuntimeError) as err:
        a[key(a)] = torch.ones(*value_shape)
    assert str(err.value) == message


def test_a_value_with_leading_ones_fits_as_in_pytorch():
    a = torch.arange(12.0).reshape(3, 4)
    a[a > 8] = torch.full((1, 3), 2.0)
    a[0:2] = torch.ones(1, 1, 4)
    assert a.tolist() == [[1.0] * 4, [1.0] * 4, [8.0, 2.0, 2.0, 2.0]]
    x, v = torch.ones(3, 4, requires_grad=True), torch.full((1, 3), 2.0, requires_grad=True)
    y = x * 1
    y[torch.arange(12.0).reshape(3, 4) > 8] = v
    y.sum().backward()
    assert x.grad.sum().item() == 9.0 and v.grad.tolist() == [[1.0, 1.0, 1.0]]


# ---- the stored words and values are real PyTorch's (skipped where torch is absent) -------------------

def _through(real_torch, case):
    """The case's function with `torch` bound to real PyTorch instead of Dagscope's facade."""
    return types.FunctionType(case.__code__, {**case.__globals__, "torch": real_torch}, case.__name__,
                              case.__defaults__, case.__closure__)


@pytest.mark.torch
@pytest.mark.parametrize("make,message", SHAPE_AND_INDEX_ERRORS)
def test_the_stored_error_is_real_pytorchs(real_torch, make, message):
    with pytest.raises(RuntimeError) as err:
        _through(real_torch, make)()
    assert str(err.value) == message


@pytest.mark.torch
@pytest.mark.parametrize("tensors,dim,message", CAT_SIZE_ERRORS)
def test_the_stored_cat_error_is_real_pytorchs(real_torch, tensors, dim, message):
    with pytest.raises(RuntimeError) as err:
        real_torch.cat([real_torch.ones(*shape) for shape in tensors], dim=dim)
    assert str(err.value) == message


@pytest.mark.torch
@pytest.mark.parametrize("key,value_shape,message", WRONG_SHAPE_ASSIGNMENTS)
def test_the_stored_assignment_error_is_real_pytorchs(real_torch, key, value_shape, message):
    a = real_torch.arange(12.0).reshape(3, 4)
    with pytest.raises(RuntimeError) as err:
        a[_through(real_torch, key)(a)] = real_torch.ones(*value_shape)
    assert str(err.value) == message


@pytest.mark.torch
@pytest.mark.parametrize("make,value,grad", GRADIENTS_DEFINED_AS_ZERO)
def test_the_stored_gradient_is_real_pytorchs(real_torch, make, value, grad):
    x = real_torch.tensor(value, requires_grad=True)
    _through(real_torch, make)(x).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), grad, rtol=1e-6)
