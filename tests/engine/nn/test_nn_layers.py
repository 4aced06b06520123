"""nn layers and losses: forward values against numpy, gradients against finite differences
(float64), and the grad_fn names PyTorch shows."""
import re

import numpy as np
import pytest

from engine import creation, nn
from engine.compat.torch_size import Size
from engine.tensor import Tensor


def _t(a, requires_grad=False):
    return Tensor(np.asarray(a), requires_grad=requires_grad)


def _finite_diff(f, arrays, index, eps=1e-6):
    """d f(arrays) / d arrays[index], central differences (f returns a float)."""
    a = arrays[index]
    grad = np.zeros_like(a)
    for i in np.ndindex(a.shape):
        old = a[i]
        a[i] = old + eps
        up = f(*arrays)
        a[i] = old - eps
        down = f(*arrays)
        a[i] = old
        grad[i] = (up - down) / (2 * eps)
    return grad


def _check_grads(build, arrays, rtol=1e-5, atol=1e-7):
    """build(*tensors) -> scalar Tensor; autograd's gradients vs finite differences for each input."""
    tensors = [_t(a.copy(), requires_grad=True) for a in arrays]
    build(*tensors).backward()
    for k, t in enumerate(tensors):
        numeric = _finite_diff(lambda *xs: float(build(*(_t(x) for x in xs)).array), [a.copy() for a in arrays], k)
        np.testing.assert_allclose(t.grad.array, numeric, rtol=rtol, atol=atol)


RNG = np.random.default_rng(7)


def test_linear_forward_and_grad_fn():
    lin = nn.Linear(4, 3)
    x = creation.randn(5, 4)
    out = lin(x)
    np.testing.assert_allclose(out.array, x.array @ lin.weight.array.T + lin.bias.array, rtol=1e-6)
    assert out.grad_fn.name == "AddmmBackward0" and out.shape == (5, 3)
    assert nn.Linear(4, 3, bias=False)(x).shape == (5, 3)


def test_layer_norm_matches_numpy_and_gradcheck():
    ln = nn.LayerNorm(6)
    x = RNG.standard_normal((3, 6)).astype(np.float32)
    out = ln(_t(x)).array
    ref = (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)
    w = RNG.standard_normal(6)
    _check_grads(lambda x, w, b: (_layer_norm(x, w, b) * _t(np.arange(6.0))).sum(),
                 [RNG.standard_normal((3, 6)), w, RNG.standard_normal(6)])


def _layer_norm(x, w, b):
    from engine import functional as F
    return F.layer_norm(x, (6,), w, b, 1e-5)


def test_batch_norm_training_eval_and_running_stats():
    bn = nn.BatchNorm1d(3)
    x = RNG.standard_normal((8, 3)).astype(np.float32) * 2 + 1
    out = bn(_t(x)).array
    np.testing.assert_allclose(out, (x - x.mean(0)) / np.sqrt(x.var(0) + 1e-5), rtol=1e-4, atol=1e-5)
    np.testing.assert_allclose(bn.running_mean.array, 0.1 * x.mean(0), rtol=1e-5)
    np.testing.assert_allclose(bn.running_var.array, 0.9 + 0.1 * x.var(0, ddof=1), rtol=1e-5)
    assert int(bn.num_batches_tracked.array) == 1
    bn.eval()
    out = bn(_t(x)).array
    np.testing.assert_allclose(out, (x - bn.running_mean.array) / np.sqrt(bn.running_var.array + 1e-5), rtol=1e-5)
    with pytest.raises(ValueError, match=r"expected 2D or 3D input \(got 4D input\)"):
        bn(creation.zeros(1, 3, 1, 1))
    bn.train()
    with pytest.raises(ValueError, match="Expected more than 1 value per channel when training"):
        bn(creation.zeros(1, 3))


def test_batch_norm_gradcheck_3d_input():
    weights = np.arange(24.0).reshape(2, 3, 4)

    def build(x, w, b):
        from engine import functional as F
        return (F.batch_norm(x, None, None, w, b, training=True) * _t(weights)).sum()
    _check_grads(build, [RNG.standard_normal((2, 3, 4)), RNG.standard_normal(3), RNG.standard_normal(3)],
                 rtol=1e-4, atol=1e-6)


def test_embedding_and_padding_idx():
    emb = nn.Embedding(5, 2, padding_idx=0)
    assert not emb.weight.array[0].any()
    idx = creation.tensor([[0, 3], [4, 4]])
    out = emb(idx)
    np.testing.assert_array_equal(out.array, emb.weight.array[idx.array])
    out.sum().backward()
    assert emb.weight.grad.array[4].tolist() == [2.0, 2.0] and emb.weight.grad.array[0].tolist() == [0.0, 0.0]


@pytest.mark.parametrize("options, named", [
    ({"sparse": True}, "nn.Embedding(sparse=True) is not supported by Dagscope: its weight's gradient would be a sparse"),
    ({"max_norm": 1.0}, "nn.Embedding(max_norm=...) is not supported"),
    ({"scale_grad_by_freq": True}, "nn.Embedding(scale_grad_by_freq=True) is not supported"),
])
def test_embedding_options_dagscope_lacks_are_named(options, named):
    """The module and F.embedding refuse each option by name (sparse with what to write instead), not silently."""
    from engine import functional as F
    from engine.errors import UnsupportedError
    with pytest.raises(UnsupportedError, match=re.escape(named)):
        nn.Embedding(5, 2, **options)
    with pytest.raises(UnsupportedError, match=re.escape(named)):
        F.embedding(creation.tensor([1]), creation.ones(5, 2), **options)


def test_dropout_train_and_eval():
    drop = nn.Dropout(0.5)
    x = creation.ones(1000)
    y = drop(x).array
    assert set(np.unique(y)) <= {0.0, 2.0} and 300 < (y == 0).sum() < 700
    drop.eval()
    assert np.array_equal(drop(x).array, x.array)


def test_conv2d_matches_direct_convolution():
    conv = nn.Conv2d(2, 3, kernel_size=3, padding=1)
    x = RNG.standard_normal((1, 2, 4, 5)).astype(np.float32)
    out = conv(_t(x)).array
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    ref = np.zeros((1, 3, 4, 5), np.float64)
    for o in range(3):
        for i in range(4):
            for j in range(5):
                ref[0, o, i, j] = (xp[0, :, i:i + 3, j:j + 3] * conv.weight.array[o]).sum() + conv.bias.array[o]
    np.testing.assert_allclose(out, ref, rtol=1e-4, atol=1e-5)


def test_activation_modules():
    x = creation.tensor([[-1.0, 0.5, 2.0]])
    assert nn.ReLU()(x).array.tolist() == [[0.0, 0.5, 2.0]]
    np.testing.assert_allclose(nn.Tanh()(x).array, np.tanh(x.array), rtol=1e-6)
    np.testing.assert_allclose(nn.Sigmoid()(x).array, 1 / (1 + np.exp(-x.array)), rtol=1e-6)
    e = np.exp(x.array - x.array.max())
    np.testing.assert_allclose(nn.Softmax(dim=1)(x).array, e / e.sum(), rtol=1e-6)
    np.testing.assert_allclose(nn.LogSoftmax(dim=1)(x).array, np.log(e / e.sum()), rtol=1e-5)
    from math import erf, sqrt
    np.testing.assert_allclose(nn.GELU()(x).array, [[v * 0.5 * (1 + erf(v / sqrt(2))) for v in x.array[0]]], rtol=1e-5)
    assert nn.Flatten()(creation.zeros(2, 3, 4)).shape == (2, 12)
    assert nn.Identity()(x) is x


def test_sequential_runs_in_order_and_indexes():
    seq = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2))
    x = creation.randn(5, 3)
    manual = seq[2](seq[1](seq[0](x)))
    np.testing.assert_array_equal(seq(x).array, manual.array)
    assert len(seq) == 3 and isinstance(seq[-1], nn.Linear) and len(seq[:2]) == 2


def test_losses_match_numpy():
    logits = RNG.standard_normal((4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2])
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    ce = nn.CrossEntropyLoss()(_t(logits), _t(target))
    assert ce.grad_fn is None and ce.item() == pytest.approx(-logp[np.arange(4), target].mean(), rel=1e-5)
    assert nn.NLLLoss(reduction="sum")(_t(logp), _t(target)).item() == \
        pytest.approx(-logp[np.arange(4), target].sum(), rel=1e-5)
    a, b = RNG.standard_normal(5).astype(np.float32), RNG.standard_normal(5).astype(np.float32)
    assert nn.MSELoss()(_t(a), _t(b)).item() == pytest.approx(((a - b) ** 2).mean(), rel=1e-5)
    assert nn.L1Loss()(_t(a), _t(b)).item() == pytest.approx(np.abs(a - b).mean(), rel=1e-5)
    p, y = 1 / (1 + np.exp(-a)), (b > 0).astype(np.float32)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p)).mean()
    assert nn.BCELoss()(_t(p.astype(np.float32)), _t(y)).item() == pytest.approx(bce, rel=1e-4)
    assert nn.BCEWithLogitsLoss()(_t(a), _t(y)).item() == pytest.approx(bce, rel=1e-4)


def test_weighted_cross_entropy_option_reaches_the_function():
    logits = RNG.standard_normal((4, 3)).astype(np.float32)
    target = np.array([0, 2, 1, 2])
    w = np.array([1.0, 2.0, 0.5], np.float32)
    logp = logits - np.log(np.exp(logits).sum(1, keepdims=True))
    picked = -logp[np.arange(4), target] * w[target]
    loss = nn.CrossEntropyLoss(weight=_t(w))(_t(logits), _t(target))
    assert loss.item() == pytest.approx(picked.sum() / w[target].sum(), rel=1e-5)


def test_cross_entropy_grad_fn_is_pytorchs():
    logits = creation.randn(4, 3, requires_grad=True)
    loss = nn.CrossEntropyLoss()(logits, creation.tensor([0, 1, 2, 0]))
    assert loss.grad_fn.name == "NllLossBackward0"


def test_more_activation_and_pooling_modules():
    x = creation.tensor([[-2.0, 0.5]])
    np.testing.assert_allclose(nn.LeakyReLU(0.1)(x).array, [[-0.2, 0.5]], rtol=1e-6)
    np.testing.assert_allclose(nn.SiLU()(x).array, x.array / (1 + np.exp(-x.array)), rtol=1e-6)
    np.testing.assert_allclose(nn.Softplus()(x).array, np.log1p(np.exp(x.array)), rtol=1e-6)
    img = Tensor(np.arange(16, dtype=np.float32).reshape(1, 1, 4, 4))
    assert nn.MaxPool2d(2)(img).array.reshape(-1).tolist() == [5.0, 7.0, 13.0, 15.0]
    assert nn.AvgPool2d(2)(img).array.reshape(-1).tolist() == [2.5, 4.5, 10.5, 12.5]
    assert [repr(m) for m in (nn.MaxPool2d(2), nn.AvgPool2d(3, 1), nn.LeakyReLU(), nn.SiLU(), nn.Softplus())] == [
        "MaxPool2d(kernel_size=2, stride=2, padding=0, dilation=1, ceil_mode=False)",
        "AvgPool2d(kernel_size=3, stride=1, padding=0)", "LeakyReLU(negative_slope=0.01)", "SiLU()",
        "Softplus(beta=1.0, threshold=20.0)"]


def test_batch_norm_2d_normalizes_per_channel():
    bn = nn.BatchNorm2d(2)
    x = RNG.standard_normal((3, 2, 4, 4)).astype(np.float32) * 3 + 2
    out = bn(_t(x)).array
    mean, var = x.mean((0, 2, 3), keepdims=True), x.var((0, 2, 3), keepdims=True)
    np.testing.assert_allclose(out, (x - mean) / np.sqrt(var + 1e-5), rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(bn.running_var.array, 0.9 + 0.1 * x.var((0, 2, 3), ddof=1), rtol=1e-5)
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        bn(creation.zeros(2, 2))
    assert repr(bn) == "BatchNorm2d(2, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)"


def test_adaptive_avg_pool():
    img = Tensor(np.arange(32, dtype=np.float32).reshape(1, 2, 4, 4), requires_grad=True)
    out = nn.AdaptiveAvgPool2d(1)(img)
    assert out.shape == (1, 2, 1, 1) and out.grad_fn.name == "MeanBackward1"
    np.testing.assert_allclose(out.array.reshape(-1), [7.5, 23.5])
    np.testing.assert_allclose(nn.AdaptiveAvgPool2d((2, 2))(img).array[0, 0], [[2.5, 4.5], [10.5, 12.5]])
    assert repr(nn.AdaptiveAvgPool2d((1, 1))) == "AdaptiveAvgPool2d(output_size=(1, 1))"


def test_sequential_and_module_list_editing():
    seq = nn.Sequential(nn.ReLU())
    seq.append(nn.Tanh()).extend([nn.Sigmoid()]).insert(0, nn.Identity())
    assert [type(m).__name__ for m in seq] == ["Identity", "ReLU", "Tanh", "Sigmoid"]
    assert list(seq._modules) == ["0", "1", "2", "3"]
    del seq[1]
    assert [type(m).__name__ for m in seq] == ["Identity", "Tanh", "Sigmoid"] and list(seq._modules) == ["0", "1", "2"]
    ml = nn.ModuleList([nn.Linear(2, 2)])
    ml.insert(0, nn.ReLU())
    ml[1] = nn.Tanh()
    assert [type(m).__name__ for m in ml] == ["ReLU", "Tanh"] and len(ml[:1]) == 1
    # the rest of PyTorch's list and dict methods, keys renumbered 0..n-1 as PyTorch keeps them
    assert type(seq.pop(0)).__name__ == "Identity" and list(seq._modules) == ["0", "1"]
    joined = seq + nn.Sequential(nn.ReLU())
    assert [type(m).__name__ for m in joined] == ["Tanh", "Sigmoid", "ReLU"] and len(seq) == 2
    with pytest.raises(ValueError, match="add operator supports only objects of Sequential class"):
        seq + nn.ReLU()
    ml = ml + nn.ModuleList([nn.Sigmoid()])
    del ml[0]
    assert [type(m).__name__ for m in ml] == ["Tanh", "Sigmoid"] and list(ml._modules) == ["0", "1"]
    assert type(ml.pop(-1)).__name__ == "Sigmoid" and len(ml) == 1
    with pytest.raises(TypeError, match="ModuleList.extend should be called with an iterable, but got ReLU"):
        ml.extend(nn.ReLU())
    md = nn.ModuleDict({"a": nn.ReLU()})
    md.update({"b": nn.Tanh()})
    md.update([("c", nn.Sigmoid())])
    assert list(md.keys()) == ["a", "b", "c"] and type(md.pop("a")).__name__ == "ReLU" and list(md) == ["b", "c"]
    with pytest.raises(RuntimeError, match="Only Tensors of floating point and complex dtype can require gradients"):
        nn.Parameter(Tensor(np.array([1])))


def test_unflatten_softmin_and_robust_losses():
    x = creation.randn(2, 6)
    assert nn.Unflatten(1, (2, 3))(x).shape == (2, 2, 3)
    assert repr(nn.Unflatten(1, (2, 3))) == "Unflatten(dim=1, unflattened_size=(2, 3))"
    assert nn.Unflatten(-1, (3, -1))(x).shape == (2, 3, 2)
    for sizes in [(4, 2), (4, -1)]:
        with pytest.raises(RuntimeError, match=r"unflatten: Provided sizes \[4, .*\] don't multiply up to the size of "
                                               r"dim 1 \(6\) in the input tensor"):
            nn.Unflatten(1, sizes)(x)
    e = np.exp(-x.array - (-x.array).max(1, keepdims=True))
    np.testing.assert_allclose(nn.Softmin(dim=1)(x).array, e / e.sum(1, keepdims=True), rtol=1e-5)
    a, b = np.array([0.0, 0.5, 3.0], np.float32), np.zeros(3, np.float32)
    d = np.abs(a - b)
    smooth = np.where(d < 1.0, 0.5 * d * d, d - 0.5).mean()
    assert nn.SmoothL1Loss()(_t(a), _t(b)).item() == pytest.approx(smooth, rel=1e-6)
    huber = np.where(d < 2.0, 0.5 * d * d, 2.0 * (d - 1.0)).sum()
    assert nn.HuberLoss(reduction="sum", delta=2.0)(_t(a), _t(b)).item() == pytest.approx(huber, rel=1e-6)


# nn.Unflatten keeps unflattened_size as given (a list, a tuple or a torch.Size), so its repr is
# PyTorch's (`unflattened_size=torch.Size([2, 2])`), and unflattens with any of them.
@pytest.mark.parametrize("sizes,shown", [([2, 2], "[2, 2]"), ((2, 2), "(2, 2)"),
                                         (Size([2, 2]), "torch.Size([2, 2])")])
def test_unflatten_shows_the_size_it_was_given_and_unflattens(sizes, shown):
    layer = nn.Unflatten(1, sizes)
    assert repr(layer) == f"Unflatten(dim=1, unflattened_size={shown})"
    assert layer(Tensor(np.ones((3, 4), np.float32))).array.shape == (3, 2, 2)


@pytest.mark.parametrize("fn", [
    lambda F, x: F.max_pool1d(x, 3, 2, 1), lambda F, x: F.max_pool1d(x, 2, ceil_mode=True),
    lambda F, x: F.avg_pool1d(x, 3, 2, 1, count_include_pad=False), lambda F, x: F.avg_pool1d(x, 2, ceil_mode=True),
    lambda F, x: nn.pooling.adaptive_avg_pool1d(x, 3), lambda F, x: F.softsign(x), lambda F, x: F.tanhshrink(x),
], ids=["max_pool1d", "max_pool1d_ceil", "avg_pool1d", "avg_pool1d_ceil", "adaptive_avg_pool1d", "softsign",
        "tanhshrink"])
def test_pool1d_softsign_tanhshrink_gradients(fn):
    """1-d pooling (the 2-d ops on x.unsqueeze(-2)) and the two compositions against finite differences
    in float64 (tests/engine/torch_sweep/377 holds PyTorch's numbers and grad_fn chains)."""
    from engine import functional as F
    x = RNG.standard_normal((2, 3, 7)) + np.linspace(0, 1, 7)      # distinct values: max is differentiable
    weights = RNG.standard_normal(fn(F, _t(x)).shape)
    _check_grads(lambda x: (fn(F, x) * _t(weights)).sum(), [x])
