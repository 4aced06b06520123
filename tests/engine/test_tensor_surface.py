"""Tensor's method surface: indexing and index-put, in-place ops, dtype/device conversions, shape methods."""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine.errors import UnsupportedError
from engine.tensor import Tensor

A = np.arange(60, dtype=np.float32).reshape(3, 4, 5)


@pytest.mark.parametrize("key", [
    1, -1, (1, 2), (slice(None), 1), slice(1, None), (slice(None, None, 2), slice(1, 4), -1), (Ellipsis, 2),
    (None, 0), (0, None, Ellipsis, None), (slice(None), None, slice(2, 3)), [0, 2], ([0, 2], [1, 3]),
    (slice(None), [3, 0, 3]), (slice(1, 3), [1, 2], slice(None)),
    (Ellipsis, [0, 1]), np.array([True, False, True]), (slice(None), np.array([True, False, True, False])),
    (0, slice(5, 10)),
])
def test_getitem_matches_numpy_and_routes_gradient(key):
    x = Tensor(A.copy(), requires_grad=True)
    tensor_key = tuple(Tensor(k) if isinstance(k, (list, np.ndarray)) and np.asarray(k).dtype != bool
                       else k for k in key) if isinstance(key, tuple) else key
    out = x[tensor_key]
    expected = A[key]
    np.testing.assert_array_equal(out.array, expected)
    out.sum().backward()
    counts = np.zeros_like(A)
    np.add.at(counts, key, 1)
    np.testing.assert_array_equal(x.grad.array, counts)


def test_integers_are_applied_before_tensor_indices_as_in_pytorch():
    # numpy makes A[1, :, [0, 4]] shape (2, 4) (the int joins the advanced index); PyTorch selects first.
    x = Tensor(A.copy())
    out = x[1, :, [0, 4]]
    assert out.shape == (4, 2)
    np.testing.assert_array_equal(out.array, A[1][:, [0, 4]])


def test_getitem_with_tensor_indices_and_masks():
    x = engine.tensor([[1.0, -2.0], [3.0, -4.0]], requires_grad=True)
    picked = x[x > 0]
    assert picked.tolist() == [1.0, 3.0] and picked.grad_fn.name == "IndexBackward0"
    rows = x[engine.tensor([1, 1, 0])]
    rows.sum().backward()
    np.testing.assert_array_equal(x.grad.array, [[1, 1], [2, 2]])
    with pytest.raises(IndexError, match="out of bounds"):
        x[5]
    with pytest.raises(IndexError, match="too many indices"):
        x[0, 0, 0]


def test_setitem_without_grad_writes_in_place():
    x = engine.zeros(2, 3)
    view = x[0]
    x[0, 1:] = 5.0
    x[engine.tensor([1])] = engine.tensor([7.0, 8.0, 9.0])
    assert x.tolist() == [[0.0, 5.0, 5.0], [7.0, 8.0, 9.0]]
    assert view.tolist() == [0.0, 5.0, 5.0]            # views see the write, as in PyTorch
    w = engine.ones(3, requires_grad=True)
    with engine.no_grad():
        w[w > 0] = 2.0
    assert w.tolist() == [2.0, 2.0, 2.0] and w.is_leaf


def test_setitem_on_a_leaf_requiring_grad_raises_pytorchs_error():
    w = engine.ones(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used in an in-place"):
        w[0] = 1.0


def test_setitem_on_a_non_leaf_is_differentiable():
    x = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    v = engine.tensor(10.0, requires_grad=True)
    y = x * 2
    y[1] = v * 3
    assert y.grad_fn.name == "CopySlices"
    assert y.tolist() == [2.0, 30.0, 6.0]
    (y * engine.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert x.grad.tolist() == [2.0, 0.0, 6.0]
    assert v.grad.item() == 6.0


def test_inplace_ops_under_no_grad_share_memory():
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    data = w.array
    with engine.no_grad():
        w.sub_(engine.tensor([0.5, 0.5]) * 2).mul_(3).add_(1, alpha=2).div_(2)
        w -= 1
    assert w.array is data and w.is_leaf and w.requires_grad
    np.testing.assert_allclose(w.tolist(), [0.0, 1.5])
    with pytest.raises(RuntimeError, match="leaf Variable"):
        w.add_(1)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        engine.tensor([1, 2]).add_(0.5)


def test_inplace_on_a_non_leaf_records_the_op():
    x = engine.tensor([1.0, -2.0], requires_grad=True)
    y = x * 3
    y.mul_(2)
    y.relu_()
    assert y.grad_fn.name == "ReluBackward0"
    y.sum().backward()
    assert x.grad.tolist() == [6.0, 0.0]
    z = x * 3
    z.relu_()                  # ReluBackward0 saves its result ...
    z.mul_(2)                  # ... which this changes: PyTorch refuses the backward, and so do we
    with pytest.raises(RuntimeError, match="output 0 of Relu, is at version 2; expected version 1"):
        z.sum().backward()


def test_fill_zero_copy_uniform_normal():
    engine.manual_seed(0)
    t = engine.empty_like(engine.zeros(2, 3)) if hasattr(engine, "empty_like") else engine.zeros(2, 3)
    t.fill_(3)
    assert t.tolist() == [[3.0] * 3] * 2
    t.zero_()
    assert not t.array.any()
    t.copy_(engine.tensor([1.0, 2.0, 3.0]))
    assert t.tolist() == [[1.0, 2.0, 3.0]] * 2
    t.uniform_(-1, 1)
    assert (t.array >= -1).all() and (t.array < 1).all() and t.array.dtype == np.float32
    t.normal_(5.0, 0.01)
    assert abs(t.array.mean() - 5.0) < 0.1
    w = engine.zeros(2, requires_grad=True)
    with engine.no_grad():
        w.normal_()
    assert w.is_leaf and w.requires_grad


def test_pow_lowers_small_integer_powers_and_keeps_dtypes():
    x = engine.tensor([1.5, -2.0, 3.0])
    assert (x ** 2).tolist() == (x * x).tolist()
    np.testing.assert_allclose((x ** 3).array, x.array ** 3, rtol=1e-6)
    assert (x ** 3).array.dtype == np.float32
    assert (engine.tensor([2, 3]) ** 2).array.dtype == np.int64
    assert (engine.tensor([4, 9]) ** 0.5).tolist() == [2.0, 3.0]
    y = engine.tensor([1.0, 2.0], requires_grad=True)
    assert (y ** 3).grad_fn.name == "PowBackward0"
    assert (2 ** y).grad_fn.name == "PowBackward2"
    assert (y ** y).grad_fn.name == "PowBackward1"
    (2 ** y).sum().backward()
    np.testing.assert_allclose(y.grad.array, np.log(2) * 2 ** np.array([1.0, 2.0]), rtol=1e-6)


def test_dtype_and_device_conversions():
    x = engine.tensor([1.5, -2.5])
    assert x.float() is x and x.to("cpu") is x and x.cpu() is x and x.contiguous() is x
    assert x.double().array.dtype == np.float64 and x.long().tolist() == [1, -2]
    assert x.int().array.dtype == np.int32 and x.bool().tolist() == [True, True]
    assert x.to(engine.tensor([1], dtype=None).dtype).array.dtype == np.int64
    assert x.type_as(engine.zeros(1).double()).array.dtype == np.float64
    assert x.type() == "torch.FloatTensor"
    with pytest.raises(UnsupportedError, match="cuda"):
        x.to("cuda")
    g = engine.tensor([1.0, 2.0], requires_grad=True)
    g.double().sum().backward()
    assert g.grad.array.dtype == np.float32


def test_reductions_and_max_min_with_dim():
    x = engine.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    values, indices = x.max(dim=1)
    assert values.tolist() == [5.0, 7.0] and indices.tolist() == [1, 0]
    assert repr(x.min(0)).startswith("torch.return_types.min(\nvalues=tensor([1., 0., 2.]),\nindices=tensor([0, 1, 0]))")
    assert x.max().item() == 7.0 and x.argmax().item() == 3 and x.argmin(dim=1).tolist() == [0, 1]
    assert x.amax(dim=(0, 1)).item() == 7.0
    np.testing.assert_allclose(x.var().item(), np.var(x.array, ddof=1), rtol=1e-6)
    np.testing.assert_allclose(x.std(1, unbiased=False).array, np.std(x.array, axis=1), rtol=1e-6)
    np.testing.assert_allclose(x.var(dim=0, correction=0, keepdim=True).array, np.var(x.array, 0, keepdims=True))
    np.testing.assert_allclose(x.logsumexp(1).array, np.log(np.exp(x.array).sum(1)), rtol=1e-6)
    with pytest.raises(RuntimeError, match="mean\\(\\): could not infer output dtype"):
        engine.tensor([1, 2]).mean()


def test_softmax_is_numerically_stable():
    x = engine.tensor([[1000.0, 0.0, -1000.0]])
    assert x.softmax(1).tolist() == [[1.0, 0.0, 0.0]]
    logp = x.log_softmax(-1)
    assert np.isfinite(logp.array[0, :2]).all() and logp.array[0, 0] == 0.0


def test_shape_methods():
    x = engine.zeros(2, 1, 3)
    assert x.squeeze().shape == (2, 3) and x.squeeze(1).shape == (2, 3) and x.squeeze(0).shape == (2, 1, 3)
    assert x.unsqueeze(-1).shape == (2, 1, 3, 1) and x.flatten().shape == (6,) and x.flatten(1).shape == (2, 3)
    assert x.view(-1, 3).shape == (2, 3) and x.view_as(engine.zeros(6)).shape == (6,)
    assert engine.zeros(3).expand_as(x).shape == (2, 1, 3) and x.permute(2, 0, 1).shape == (3, 2, 1)
    assert x.transpose(0, -1).shape == (3, 1, 2) and engine.zeros(2, 3).T.shape == (3, 2)
    assert [t.shape for t in engine.zeros(5, 2).split(2)] == [(2, 2), (2, 2), (1, 2)]
    assert [t.shape for t in engine.zeros(5, 2).chunk(2)] == [(3, 2), (2, 2)]
    assert [len(row) for row in engine.zeros(2, 3)] == [3, 3]
    assert x.new_zeros(4).shape == (4,) and x.new_ones((2, 2)).array.sum() == 4


def test_masked_fill_clamp_and_comparisons():
    x = engine.tensor([-1.0, 0.5, 2.0], requires_grad=True)
    y = x.masked_fill(x > 1, 0.0).clamp(min=-0.5)
    assert y.tolist() == [-0.5, 0.5, 0.0]
    y.sum().backward()
    assert x.grad.tolist() == [0.0, 1.0, 0.0]
    assert ((x > 0) & (x < 1)).tolist() == [False, True, False]
    assert (~(x > 0)).tolist() == [True, False, False]


def test_leaf_gradients_never_alias_other_arrays():
    """AccumulateGrad keeps an unshared gradient array without copying; shared ones are copied."""
    a, b = engine.tensor([1.0, 2.0], requires_grad=True), engine.tensor([3.0, 4.0], requires_grad=True)
    (a + b).sum().backward()                       # AddBackward0 sends the same array to both
    assert not np.shares_memory(a.grad.array, b.grad.array)
    seed = np.ones(2, np.float32)
    c = engine.tensor([1.0, 2.0], requires_grad=True)
    (c * 1).backward(seed)
    assert not np.shares_memory(c.grad.array, seed)
    w = engine.ones(3, 2, requires_grad=True)
    x = engine.ones(4, 3)
    out = x @ w
    out.sum().backward(retain_graph=True)
    first = w.grad.array.copy()
    out.sum().backward()
    np.testing.assert_allclose(w.grad.array, 2 * first)
    assert not np.shares_memory(w.grad.array, out.array) and not np.shares_memory(w.grad.array, x.array)


def test_inplace_change_of_a_view_changes_its_base_as_in_pytorch():
    a = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
    y = a * 2
    row = y[0]
    row[1] = 7.0                         # writes through the view into y (CopySlices)
    assert y.tolist() == [[2.0, 7.0], [6.0, 8.0]] and row.tolist() == [2.0, 7.0]
    assert y.grad_fn.name == "CopySlices" and row.grad_fn.name == "AsStridedBackward0"
    y.view(4).mul_(2)                    # row, another view of y, sees the change (Tensor._keep_view)
    assert y.tolist() == [[4.0, 14.0], [12.0, 16.0]] and row.tolist() == [4.0, 14.0]
    (y * y).sum().backward()             # d/da of sum((2 a * 2)^2) = 32 a, except the overwritten element
    assert a.grad.tolist() == [[32.0, 0.0], [96.0, 128.0]]
    b = engine.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True) * 1
    r = b.t().reshape(4)                 # a reshape that had to copy is not a view: b keeps its values
    r.add_(1)
    assert b.tolist() == [[1.0, 2.0], [3.0, 4.0]]
    v = b[0]
    b[0, 0] = 5.0                        # the base changed after the view was taken: the view sees it
    assert v.tolist() == [5.0, 2.0]
    v.mul_(2)                            # ...and writes through into the changed base
    assert b.tolist() == [[10.0, 4.0], [3.0, 4.0]] and v.tolist() == [10.0, 4.0]
    with pytest.raises(UnsupportedError, match="expanded"):
        b.expand(2, 2, 2)[0].zero_()


def test_view_of_a_non_contiguous_tensor_fails_as_in_pytorch():
    x = engine.zeros(2, 3)
    assert x.t().reshape(6).shape == (6,)
    with pytest.raises(RuntimeError, match="view size is not compatible .* Use .reshape"):
        x.t().view(6)
    assert x.t().view(3, 2).shape == (3, 2) and x[:, :1].view(2).shape == (2,)


def test_repeat_tril_triu():
    x = engine.tensor([[1.0, 2.0]], requires_grad=True)
    r = x.repeat(2, 3)
    np.testing.assert_array_equal(r.array, np.tile(x.array, (2, 3)))
    r.sum().backward()
    assert x.grad.tolist() == [[6.0, 6.0]]
    m = engine.ones(3, 3)
    assert m.tril().tolist() == np.tril(np.ones((3, 3))).tolist() and m.triu(1).array.sum() == 3


def test_fill_on_a_non_leaf_cuts_the_gradient_to_zero():
    x = engine.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    y.fill_(5.0)
    assert y.tolist() == [5.0, 5.0] and y.grad_fn.name == "FillBackward0"
    (y * x).sum().backward()
    assert x.grad.tolist() == [5.0, 5.0]        # only through the second factor


def test_inplace_ops_bump_the_version_counter():
    x = engine.zeros(3)
    assert x._version == 0
    x.add_(1)
    x[0] = 2.0
    x.zero_()
    x.copy_(engine.ones(3))
    assert x._version == 4
    y = engine.tensor([1.0], requires_grad=True) * 2
    y.mul_(3)
    assert y._version == 1


def test_second_backward_is_an_error_only_where_pytorch_saved_something():
    x = engine.tensor(2.0, requires_grad=True)
    y = x + 3                      # AddBackward0 saves nothing: PyTorch allows this twice
    y.backward()
    y.backward()
    assert x.grad.item() == 2.0
    y = x * 3                      # MulBackward0 saves the scalar 3 (as a wrapped tensor): an error
    y.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        y.backward()
    z = x * x                      # saves x: the second backward must fail
    z.backward()
    with pytest.raises(RuntimeError, match="backward through the graph a second time"):
        z.backward()
    w = engine.ones(2, 2, requires_grad=True)
    out = (engine.ones(3, 2) @ w).sum()   # saves only the constant left factor
    out.backward()
    with pytest.raises(RuntimeError, match="second time"):
        out.backward()


def test_backward_through_a_tensor_changed_in_place_raises_pytorchs_error():
    a = engine.tensor([1.0, 2.0, 3.0], requires_grad=True)
    b = a * 1
    c = (b * b).sum()
    b.add_(1)                               # MulBackward0 saved b at version 0
    with pytest.raises(RuntimeError, match=r"modified by an inplace operation: \[torch.FloatTensor \[3\]\], "
                                           r"which is output 0 of Add, is at version 1; expected version 0"):
        c.backward()
    y = a.exp()
    with engine.no_grad():
        y.add_(1)                           # ExpBackward0 reads its output
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()
    w = engine.tensor([1.0, 2.0], requires_grad=True)
    loss = (w * engine.tensor([3.0, 4.0])).sum()
    with engine.no_grad():
        w.sub_(1)                           # w itself was not saved (only the constant factor was)
    loss.backward()
    assert w.grad.tolist() == [3.0, 4.0]
    z = a * 2
    z.mul_(3)                               # an in-place op on an output nobody saved: fine
    z.sum().backward()


def test_nonzero_as_tuple_as_a_method_too():
    x = engine.tensor([[0.0, 1.0], [2.0, 0.0]])
    rows, cols = x.nonzero(as_tuple=True)
    assert rows.tolist() == [0, 1] and cols.tolist() == [1, 0]
    assert x.nonzero().tolist() == [[0, 1], [1, 0]]
    assert [t.tolist() for t in engine.tensor(3.0).nonzero(as_tuple=True)] == [[0]]
