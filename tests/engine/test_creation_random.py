"""randint and randperm honour requires_grad as PyTorch's factories do: refused for their integer dtype with
PyTorch's words, accepted for a float dtype (it was silently ignored). *_like tensors take a dense
input's layout and draw in its memory order, normal values one at a time when not contiguous, as PyTorch's
kernels (a transposed input got the draws of a contiguous one). The tests marked torch make the same
refusals and draws with real PyTorch where it is installed: the words and layouts are its own."""
import numpy as np
import pytest

from engine import creation
from engine.tensor import Tensor

INTEGER_GRAD_REFUSED = "Only Tensors of floating point and complex dtype can require gradients"


@pytest.mark.parametrize("make", [lambda **kw: creation.randint(0, 10, (3,), **kw),
                                  lambda **kw: creation.randperm(3, **kw)])
def test_an_integer_random_tensor_cannot_require_grad(make):
    with pytest.raises(RuntimeError, match=f"^{INTEGER_GRAD_REFUSED}$"):
        make(requires_grad=True)


@pytest.mark.parametrize("make", [lambda **kw: creation.randint(0, 10, (3,), **kw),
                                  lambda **kw: creation.randperm(3, **kw)])
def test_a_float_random_integer_tensor_can_require_grad(make):
    t = make(dtype=np.float32, requires_grad=True)
    assert t.requires_grad and t.is_leaf and t.array.dtype == np.float32


# ---- draws follow a tensor's memory layout, as PyTorch's random kernels do ----

def _transposed(rows=5, cols=4, dtype=np.float32):
    return Tensor(np.zeros((rows, cols), dtype)).t()       # (cols, rows), not contiguous


def test_rand_like_and_randint_like_of_a_transposed_tensor_draw_in_its_memory_order():
    creation.manual_seed(0)
    expected = creation.rand(5, 4).array.T
    creation.manual_seed(0)
    got = creation.rand_like(_transposed())
    np.testing.assert_array_equal(got.array, expected)
    assert not got.array.flags.c_contiguous                # laid out as its input, as PyTorch's empty_like
    creation.manual_seed(0)
    ints = creation.randint(0, 10, (5, 4)).array.T
    creation.manual_seed(0)
    np.testing.assert_array_equal(creation.randint_like(_transposed(), 10).array, ints)


def test_randn_like_of_a_transposed_tensor_draws_one_normal_at_a_time_in_memory_order():
    # PyTorch's 16-value Box-Muller blocks are for contiguous tensors only: 20 serial draws here, which
    # are what a run of small (under 16) draws gives
    creation.manual_seed(0)
    serial = np.concatenate([creation.randn(10).array, creation.randn(10).array]).reshape(5, 4).T
    creation.manual_seed(0)
    np.testing.assert_array_equal(creation.randn_like(_transposed()).array, serial)
    creation.manual_seed(0)
    blocked = creation.randn(4, 5).array
    creation.manual_seed(0)
    np.testing.assert_array_equal(creation.randn_like(Tensor(np.zeros((4, 5), np.float32))).array, blocked)


def test_like_tensors_of_a_strided_slice_are_contiguous_and_drawn_in_order():
    sliced = Tensor(np.zeros((5, 8), np.float32)[:, ::2])
    creation.manual_seed(0)
    expected = creation.rand(5, 4).array
    creation.manual_seed(0)
    got = creation.rand_like(sliced)
    np.testing.assert_array_equal(got.array, expected)
    assert got.array.flags.c_contiguous and creation.zeros_like(sliced).array.flags.c_contiguous


def test_zeros_ones_full_like_keep_a_dense_layout():
    for make in (creation.zeros_like, creation.ones_like, lambda t: creation.full_like(t, 2.0)):
        out = make(_transposed())
        assert out.array.shape == (4, 5) and not out.array.flags.c_contiguous


# ---- the same refusals and draws with real PyTorch (skipped where torch is absent) --------------------

@pytest.mark.torch
def test_pytorch_refuses_and_accepts_the_same_random_integer_tensors(real_torch):
    for make in (lambda **kw: real_torch.randint(0, 10, (3,), **kw), lambda **kw: real_torch.randperm(3, **kw)):
        with pytest.raises(RuntimeError) as refused:
            make(requires_grad=True)
        assert str(refused.value) == INTEGER_GRAD_REFUSED
        t = make(dtype=real_torch.float32, requires_grad=True)
        assert t.requires_grad and t.is_leaf and t.dtype == real_torch.float32


@pytest.mark.torch
def test_pytorch_draws_like_tensors_in_memory_order(real_torch):
    """What the tests above demand of the engine, shown to be PyTorch's own behaviour."""
    def seeded(make):
        real_torch.manual_seed(0)
        return make()

    transposed = real_torch.zeros(5, 4).t()
    got = seeded(lambda: real_torch.rand_like(transposed))
    assert real_torch.equal(got, seeded(lambda: real_torch.rand(5, 4)).t()) and not got.is_contiguous()
    assert real_torch.equal(seeded(lambda: real_torch.randint_like(transposed, 10)),
                            seeded(lambda: real_torch.randint(0, 10, (5, 4))).t())
    serial = seeded(lambda: real_torch.cat([real_torch.randn(10), real_torch.randn(10)])).reshape(5, 4).t()
    assert real_torch.equal(seeded(lambda: real_torch.randn_like(transposed)), serial)
    assert real_torch.equal(seeded(lambda: real_torch.randn_like(real_torch.zeros(4, 5))),
                            seeded(lambda: real_torch.randn(4, 5)))
    sliced = real_torch.zeros(5, 8)[:, ::2]
    got = seeded(lambda: real_torch.rand_like(sliced))
    assert real_torch.equal(got, seeded(lambda: real_torch.rand(5, 4))) and got.is_contiguous()
    assert real_torch.zeros_like(sliced).is_contiguous()
    for make in (real_torch.zeros_like, real_torch.ones_like, lambda t: real_torch.full_like(t, 2.0)):
        out = make(transposed)
        assert out.shape == (4, 5) and not out.is_contiguous()
