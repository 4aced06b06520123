"""nn.init's random initializers refuse an integer or bool tensor with PyTorch's error, as PyTorch's random
kernels do (they silently filled it with truncated draws); constant initializers still accept it."""
import numpy as np
import pytest

from engine.nn import init
from engine.tensor import Tensor


@pytest.mark.parametrize("initializer,kernel", [
    (init.uniform_, "check_uniform_bounds"), (init.xavier_uniform_, "check_uniform_bounds"),
    (init.kaiming_uniform_, "check_uniform_bounds"), (init.normal_, "normal_kernel_cpu"),
    (init.xavier_normal_, "normal_kernel_cpu"), (init.kaiming_normal_, "normal_kernel_cpu"),
    (init.trunc_normal_, "normal_kernel_cpu"), (init.orthogonal_, "normal_kernel_cpu"),
])
@pytest.mark.parametrize("dtype,word", [(np.int64, "Long"), (np.int32, "Int"), (np.bool_, "Bool")])
def test_random_initializers_refuse_integer_tensors(initializer, kernel, dtype, word):
    tensor = Tensor(np.zeros((2, 2), dtype))
    with pytest.raises(NotImplementedError, match=f'"{kernel}" not implemented for \'{word}\''):
        initializer(tensor)


def test_constant_initializers_accept_integer_tensors():
    tensor = Tensor(np.zeros((2, 2), np.int64))
    assert init.constant_(tensor, 3).array.tolist() == [[3, 3], [3, 3]]
    assert init.eye_(tensor).array.tolist() == [[1, 0], [0, 1]]


def test_float_tensors_are_still_drawn():
    tensor = Tensor(np.zeros((50,), np.float32))
    init.uniform_(tensor, 1.0, 2.0)
    assert tensor.array.min() >= 1.0 and tensor.array.max() <= 2.0 and tensor.array.std() > 0
