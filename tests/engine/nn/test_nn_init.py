"""nn.init's random initializers refuse an integer or bool tensor with PyTorch's error, as PyTorch's random
kernels do (they silently filled it with truncated draws); constant initializers still accept it. Random
initializers fill a tensor in its memory order (normal values one at a time when it is not contiguous)."""
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


def test_a_transposed_weight_is_filled_in_its_memory_order():
    from engine import creation
    creation.manual_seed(0)
    expected = creation.rng().uniform(-1.0, 2.0, (5, 4), np.float32).T
    creation.manual_seed(0)
    weight = Tensor(np.zeros((5, 4), np.float32)).t()
    init.uniform_(weight, -1.0, 2.0)
    np.testing.assert_array_equal(weight.array, expected)


def test_normal_into_a_non_contiguous_weight_is_drawn_one_value_at_a_time():
    from engine import creation
    creation.manual_seed(0)
    serial = np.concatenate([creation.randn(10).array, creation.randn(10).array]).reshape(5, 4).T
    creation.manual_seed(0)
    weight = Tensor(np.zeros((5, 4), np.float32)).t()
    init.normal_(weight)
    np.testing.assert_array_equal(weight.array, serial)
