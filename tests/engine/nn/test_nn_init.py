"""nn.init's random initializers refuse an integer or bool tensor with PyTorch's error, as PyTorch's random
kernels do (they silently filled it with truncated draws); constant initializers still accept it. Random
initializers fill a tensor in its memory order (normal values one at a time when it is not contiguous).
The tests marked torch make the same refusals and fills with real PyTorch where it is installed."""
import numpy as np
import pytest

from engine.nn import init
from engine.tensor import Tensor


# (initializer, the kernel PyTorch 2.13 names when it refuses an integer or bool tensor)
REFUSING_KERNELS = [("uniform_", "check_uniform_bounds"), ("xavier_uniform_", "check_uniform_bounds"),
                    ("kaiming_uniform_", "check_uniform_bounds"), ("normal_", "normal_kernel_cpu"),
                    ("xavier_normal_", "normal_kernel_cpu"), ("kaiming_normal_", "normal_kernel_cpu"),
                    ("trunc_normal_", "normal_kernel_cpu"), ("orthogonal_", "normal_kernel_cpu")]
DTYPE_WORDS = [("int64", "Long"), ("int32", "Int"), ("bool", "Bool")]


@pytest.mark.parametrize("initializer,kernel", REFUSING_KERNELS)
@pytest.mark.parametrize("dtype,word", DTYPE_WORDS)
def test_random_initializers_refuse_integer_tensors(initializer, kernel, dtype, word):
    tensor = Tensor(np.zeros((2, 2), dtype))
    with pytest.raises(NotImplementedError, match=f'^"{kernel}" not implemented for \'{word}\'$'):
        getattr(init, initializer)(tensor)


@pytest.mark.torch
@pytest.mark.parametrize("initializer,kernel", REFUSING_KERNELS)
@pytest.mark.parametrize("dtype,word", DTYPE_WORDS)
def test_pytorch_refuses_them_in_the_same_words(real_torch, initializer, kernel, dtype, word):
    tensor = real_torch.zeros((2, 2), dtype=getattr(real_torch, dtype))
    with pytest.raises(NotImplementedError) as refused:
        getattr(real_torch.nn.init, initializer)(tensor)
    assert str(refused.value) == f'"{kernel}" not implemented for \'{word}\''


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


@pytest.mark.torch
def test_pytorch_fills_a_transposed_weight_in_its_memory_order(real_torch):
    real_torch.manual_seed(0)
    uniform = real_torch.empty(5, 4).uniform_(-1.0, 2.0).t()
    real_torch.manual_seed(0)
    serial = real_torch.cat([real_torch.randn(10), real_torch.randn(10)]).reshape(5, 4).t()
    for fill, expected in ((lambda w: real_torch.nn.init.uniform_(w, -1.0, 2.0), uniform),
                           (real_torch.nn.init.normal_, serial)):
        real_torch.manual_seed(0)
        weight = real_torch.zeros(5, 4).t()
        fill(weight)
        assert real_torch.equal(weight, expected)
