"""A module's full backward hook sees one grad_input entry per positional argument, as PyTorch's: the
gradient of the input that requires grad, zeros for another tensor, None for a non-tensor, all None when
no input requires grad; a hook (or pre-hook) returning the wrong number of entries fails with PyTorch's
message."""
import numpy as np
import pytest

from engine import nn
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


class _Scale(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = Parameter(np.ones(2, np.float32))

    def forward(self, a, k=1.0, b=None):
        out = a * self.w * k
        return out if b is None else out + b


def _seen_grad_input(module, *args, **kwargs):
    seen = []
    module.register_full_backward_hook(lambda m, grad_input, grad_output: seen.append(grad_input))
    module(*args, **kwargs).sum().backward()
    return seen[0]


def _leaf():
    return Tensor(np.ones(2, np.float32), requires_grad=True)


def test_one_entry_per_positional_argument():
    seen = _seen_grad_input(_Scale(), _leaf(), 2.0, Tensor(np.ones(2, np.float32)))
    assert len(seen) == 3
    np.testing.assert_array_equal(seen[0].array, [2.0, 2.0])
    assert seen[1] is None
    np.testing.assert_array_equal(seen[2].array, [0.0, 0.0])
    assert seen[2].array.dtype == np.float32


def test_keyword_arguments_have_no_entry():
    seen = _seen_grad_input(_Scale(), _leaf(), k=2.0, b=Tensor(np.ones(2, np.float32)))
    assert len(seen) == 1


def test_all_none_when_no_input_requires_grad():
    seen = _seen_grad_input(_Scale(), Tensor(np.ones(2, np.float32)), 2.0, Tensor(np.ones(2, np.float32)))
    assert seen == (None, None, None)


def test_the_hooks_result_replaces_the_gradient_of_the_input_that_needs_it():
    module = _Scale()
    module.register_full_backward_hook(lambda m, gi, go: (gi[0] * 2, None, None))
    a = _leaf()
    module(a, 2.0, Tensor(np.ones(2, np.float32))).sum().backward()
    np.testing.assert_array_equal(a.grad.array, [4.0, 4.0])


def test_a_result_of_the_wrong_length_fails_as_in_pytorch():
    module = _Scale()
    module.register_full_backward_hook(lambda m, gi, go: (gi[0],))
    out = module(_leaf(), 2.0, Tensor(np.ones(2, np.float32))).sum()
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 1, but expected 3"):
        out.backward()


def test_a_pre_hook_result_of_the_wrong_length_fails_as_in_pytorch():
    module = _Scale()
    module.register_full_backward_pre_hook(lambda m, grad_output: (grad_output[0], grad_output[0]))
    out = module(_leaf()).sum()
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 2, but expected 1"):
        out.backward()
