"""engine.functional: values against numpy re-derivations, PyTorch's grad_fn names, and (when real
PyTorch is installed) differential checks against torch.nn.functional."""
from __future__ import annotations

import numpy as np
import pytest

import engine
from engine import functional as F
from engine.tensor import Tensor

rng = np.random.default_rng(3)


def t(a, grad=False):
    return Tensor(np.asarray(a), requires_grad=grad)


def _log_softmax(z, axis=1):
    z = z - z.max(axis=axis, keepdims=True)
    return z - np.log(np.exp(z).sum(axis=axis, keepdims=True))


def test_linear_is_addmm_with_a_transposed_weight():
    x, w, b = t(rng.standard_normal((4, 3))), t(rng.standard_normal((2, 3)), True), t(rng.standard_normal(2), True)
    out = F.linear(x, w, b)
    assert out.grad_fn.name == "AddmmBackward0"
    assert [n.name if n else None for n, _ in out.grad_fn.next_functions] == ["AccumulateGrad", None, "TBackward0"]
    np.testing.assert_allclose(out.array, x.array @ w.array.T + b.array, rtol=1e-12)
    batched = F.linear(t(rng.standard_normal((2, 4, 3))), w, b)
    assert batched.shape == (2, 4, 2) and batched.grad_fn.name == "ViewBackward0"
    assert [n.name for n, _ in batched.grad_fn.next_functions] == ["AddmmBackward0"]


@pytest.mark.parametrize("shape,transposed,grad_fn", [
    ((3,), False, "ViewBackward0"),         # a 1-D input is viewed as one row, as PyTorch 2.13 does
    ((2, 4, 3), False, "ViewBackward0"), ((2, 1, 2, 3), False, "ViewBackward0"),
    ((0, 2, 3), False, "ViewBackward0"), ((4, 2, 3), True, "AddBackward0")])
def test_linear_on_other_ranks_follows_pytorchs_graph_and_gradients(shape, transposed, grad_fn):
    """PyTorch views a contiguous input as 2-D around addmm; a non-contiguous one goes through
    matmul and an add. Both must give x @ W^T + b and its exact gradients."""
    data = rng.standard_normal(shape)
    w_data, b_data = rng.standard_normal((2, 3)), rng.standard_normal(2)
    x, w, b = t(data.copy(), True), t(w_data, True), t(b_data, True)
    x_in = x.transpose(0, 1) if transposed else x
    out = F.linear(x_in, w, b)
    assert out.grad_fn.name == grad_fn
    if grad_fn == "ViewBackward0":
        assert [n.name for n, _ in out.grad_fn.next_functions] == ["AddmmBackward0"]
    x_np = data.swapaxes(0, 1) if transposed else data
    np.testing.assert_allclose(out.array, x_np @ w_data.T + b_data, rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(t(upstream))
    grad_x = upstream @ w_data
    np.testing.assert_allclose(x.grad.array, grad_x.swapaxes(0, 1) if transposed else grad_x, rtol=1e-12)
    rows, cols = x_np.reshape(-1, 3), upstream.reshape(-1, 2)
    np.testing.assert_allclose(w.grad.array, cols.T @ rows, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(b.grad.array, cols.sum(0), rtol=1e-10, atol=1e-12)


def test_cross_entropy_matches_numpy_and_prints_like_pytorch():
    logits, target = rng.standard_normal((5, 4)), np.array([0, 3, 1, 3, 2])
    x = t(logits.astype(np.float32), True)
    loss = F.cross_entropy(x, t(target))
    want = -_log_softmax(logits)[np.arange(5), target].mean()
    np.testing.assert_allclose(loss.item(), want, rtol=1e-6)
    assert repr(loss).endswith("grad_fn=<NllLossBackward0>)")
    loss.backward()
    p = np.exp(_log_softmax(logits))
    p[np.arange(5), target] -= 1
    np.testing.assert_allclose(x.grad.array, p / 5, rtol=1e-5, atol=1e-7)


def test_cross_entropy_options():
    logits, target = rng.standard_normal((4, 3)), np.array([2, -100, 0, 2])
    weight = np.array([0.2, 1.0, 3.0])
    logp = _log_softmax(logits)
    valid = target != -100
    picked = -logp[np.arange(4)[valid], target[valid]] * weight[target[valid]]
    got = F.cross_entropy(t(logits), t(target), weight=t(weight))
    np.testing.assert_allclose(got.item(), picked.sum() / weight[target[valid]].sum(), rtol=1e-12)
    none = F.cross_entropy(t(logits), t(target), reduction="none")
    assert none.shape == (4,) and none.array[1] == 0
    # label smoothing: (1 - e) * nll + e * mean over classes of -logp
    e = 0.1
    target = np.array([2, 1, 0, 2])
    smooth = F.cross_entropy(t(logits), t(target), label_smoothing=e)
    want = ((1 - e) * -logp[np.arange(4), target] + e * -logp.mean(axis=1)).mean()
    np.testing.assert_allclose(smooth.item(), want, rtol=1e-12)
    # class-probability targets
    probs = np.exp(_log_softmax(rng.standard_normal((4, 3))))
    np.testing.assert_allclose(F.cross_entropy(t(logits), t(probs)).item(), -(probs * logp).sum(1).mean(), rtol=1e-12)
    # (N, C, d) inputs
    logits3, target3 = rng.standard_normal((2, 3, 4)), rng.integers(0, 3, (2, 4))
    lp3 = _log_softmax(logits3, axis=1)
    want3 = -np.take_along_axis(lp3, target3[:, None], 1).mean()
    np.testing.assert_allclose(F.cross_entropy(t(logits3), t(target3)).item(), want3, rtol=1e-12)


@pytest.mark.parametrize("reduction,grad_fn", [("mean", "DivBackward1"), ("sum", "NegBackward0"),
                                                ("none", "NegBackward0")])
def test_cross_entropy_with_probabilities_follows_pytorchs_composition(reduction, grad_fn):
    """-(logp * target * weight) summed (and for 'mean' divided by the sample count), as PyTorch's
    cross_entropy_loss_prob_target; its gradient is (softmax * sum(w t) - w t) / scale."""
    logits, probs = rng.standard_normal((2, 3, 4)), np.exp(_log_softmax(rng.standard_normal((2, 3, 4))))
    weight, e = np.array([0.5, 2.0, 1.0]), 0.2
    x = t(logits, True)
    loss = F.cross_entropy(x, t(probs), weight=t(weight), reduction=reduction, label_smoothing=e)
    assert loss.grad_fn.name == grad_fn     # PyTorch's 'mean' divides by a number: DivBackward1
    smoothed = probs * (1 - e) + e / 3
    wt = smoothed * weight[None, :, None]
    per_sample = -(wt * _log_softmax(logits)).sum(1)
    scale = {"mean": per_sample.size, "sum": 1, "none": 1}[reduction]
    want = per_sample if reduction == "none" else per_sample.sum() / scale
    np.testing.assert_allclose(loss.array, want, rtol=1e-12)
    upstream = rng.standard_normal(per_sample.shape) if reduction == "none" else np.ones(per_sample.shape)
    loss.backward(t(upstream) if reduction == "none" else None)
    softmax = np.exp(_log_softmax(logits))
    grad = (softmax * wt.sum(1, keepdims=True) - wt) * upstream[:, None, :] / scale
    np.testing.assert_allclose(x.grad.array, grad, rtol=1e-10, atol=1e-12)


def test_other_losses_match_numpy():
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    mse = F.mse_loss(t(a), t(b))
    assert mse.grad_fn is None and np.isclose(mse.item(), ((a - b) ** 2).mean())
    assert np.isclose(F.l1_loss(t(a), t(b), reduction="sum").item(), np.abs(a - b).sum())
    p, y = 1 / (1 + np.exp(-a)), (b > 0).astype(np.float64)
    bce = -(y * np.log(p) + (1 - y) * np.log(1 - p))
    assert np.isclose(F.binary_cross_entropy(t(p), t(y)).item(), bce.mean())
    assert np.isclose(F.binary_cross_entropy_with_logits(t(a), t(y)).item(), bce.mean())
    pw = np.array([1.0, 2.0, 0.5, 3.0])
    weighted = -(pw * y * np.log(p) + (1 - y) * np.log(1 - p))
    assert np.isclose(F.binary_cross_entropy_with_logits(t(a), t(y), pos_weight=t(pw), reduction="sum").item(),
                      weighted.sum())
    x = t(a, True)
    for fn, name in ((lambda: F.mse_loss(x, t(b)), "MseLossBackward0"),
                     (lambda: F.l1_loss(x, t(b)), "MeanBackward0"),
                     (lambda: F.binary_cross_entropy_with_logits(x, t(y)), "BinaryCrossEntropyWithLogitsBackward0"),
                     (lambda: F.binary_cross_entropy(F.sigmoid(x), t(y)), "BinaryCrossEntropyBackward0")):
        assert fn().grad_fn.name == name


def _conv_reference(x, w, b, stride, padding):
    n, c, h, wd = x.shape
    o, _, kh, kw = w.shape
    xp = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    oh, ow = (h + 2 * padding - kh) // stride + 1, (wd + 2 * padding - kw) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            patch = xp[:, :, i * stride:i * stride + kh, j * stride:j * stride + kw]
            out[:, :, i, j] = np.tensordot(patch, w, axes=([1, 2, 3], [1, 2, 3])) + b
    return out


@pytest.mark.parametrize("stride,padding", [(1, 0), (1, 1), (2, 1), (3, 2)])
def test_conv2d_matches_a_direct_loop(stride, padding):
    x, w, b = rng.standard_normal((2, 3, 7, 6)), rng.standard_normal((4, 3, 3, 2)), rng.standard_normal(4)
    out = F.conv2d(t(x), t(w), t(b), stride=stride, padding=padding)
    np.testing.assert_allclose(out.array, _conv_reference(x, w, b, stride, padding), rtol=1e-10, atol=1e-12)
    assert F.conv2d(t(x), t(w, True), t(b)).grad_fn.name == "ConvolutionBackward0"


def test_conv2d_same_padding_and_unbatched_input():
    x, w = rng.standard_normal((3, 5, 5)), rng.standard_normal((2, 3, 3, 3))
    out = F.conv2d(t(x), t(w), padding="same")
    assert out.shape == (2, 5, 5)
    np.testing.assert_allclose(out.array, _conv_reference(x[None], w, 0, 1, 1)[0], rtol=1e-10)


def test_pooling_matches_a_direct_loop():
    x = rng.standard_normal((2, 3, 6, 5))
    mx = F.max_pool2d(t(x), 2)
    av = F.avg_pool2d(t(x), 3, stride=1, padding=1)
    for i in range(3):
        for j in range(2):
            np.testing.assert_allclose(mx.array[:, :, i, j], x[:, :, 2 * i:2 * i + 2, 2 * j:2 * j + 2].max(axis=(2, 3)))
    xp = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    np.testing.assert_allclose(av.array[:, :, 2, 3], xp[:, :, 2:5, 3:6].mean(axis=(2, 3)), rtol=1e-12)
    assert mx.shape == (2, 3, 3, 2) and av.shape == (2, 3, 6, 5)


def test_dropout_is_deterministic_given_the_seed_and_scales():
    x = t(np.ones((100, 100), np.float32), True)
    engine.manual_seed(3)
    a = F.dropout(x, 0.25)
    engine.manual_seed(3)
    b = F.dropout(x, 0.25)
    np.testing.assert_array_equal(a.array, b.array)
    assert set(np.unique(a.array)) <= {0.0, np.float32(1 / 0.75)}
    assert abs((a.array == 0).mean() - 0.25) < 0.03 and a.grad_fn.name == "MulBackward0"     # (PyTorch's CPU dropout)
    assert F.dropout(x, 0.5, training=False) is x


def test_embedding_one_hot_gather_cat_stack():
    w = t(rng.standard_normal((5, 2)), True)
    idx = t(np.array([[0, 4], [4, 1]]))
    e = F.embedding(idx, w)
    np.testing.assert_array_equal(e.array, w.array[idx.array])
    e.sum().backward()
    np.testing.assert_array_equal(w.grad.array[:, 0], [1, 1, 0, 0, 2])
    assert F.one_hot(t(np.array([0, 2]))).tolist() == [[1, 0, 0], [0, 0, 1]]
    x = t(np.arange(6.0).reshape(2, 3))
    assert F.gather(x, 1, t(np.array([[2, 0], [1, 1]]))).tolist() == [[2.0, 0.0], [4.0, 4.0]]
    assert F.cat([x, x], dim=-1).shape == (2, 6) and F.stack([x, x], dim=-1).shape == (2, 3, 2)
    assert F.max(x, 1).indices.tolist() == [2, 2] and F.max(x, t(np.full((2, 3), 2.5))).tolist()[0] == [2.5, 2.5, 2.5]


def test_layer_norm_and_activations():
    x = rng.standard_normal((2, 5))
    w, b = rng.standard_normal(5), rng.standard_normal(5)
    want = (x - x.mean(1, keepdims=True)) / np.sqrt(x.var(1, keepdims=True) + 1e-5) * w + b
    np.testing.assert_allclose(F.layer_norm(t(x), (5,), t(w), t(b)).array, want, rtol=1e-10)
    from math import erf
    np.testing.assert_allclose(F.gelu(t(x)).array, [[v * 0.5 * (1 + erf(v / 2 ** 0.5)) for v in row] for row in x],
                               rtol=1e-12)
    np.testing.assert_allclose(F.softplus(t(x)).array, np.log1p(np.exp(x)), rtol=1e-12)
    np.testing.assert_allclose(F.sigmoid(t(x)).array, 1 / (1 + np.exp(-x)), rtol=1e-12)
    np.testing.assert_allclose(F.leaky_relu(t(x), 0.1).array, np.where(x > 0, x, 0.1 * x))
    np.testing.assert_allclose(F.silu(t(x)).array, x / (1 + np.exp(-x)), rtol=1e-12)


# ---- optional: real PyTorch as the oracle -------------------------------------------------------------

@pytest.mark.torch
def test_against_real_pytorch():
    torch = pytest.importorskip("torch")
    x = rng.standard_normal((4, 3, 6, 6))
    w, b = rng.standard_normal((2, 3, 3, 3)), rng.standard_normal(2)
    target = np.array([0, 1, 1, 0])
    ours = F.cross_entropy(F.flatten(F.max_pool2d(F.gelu(F.conv2d(t(x, True), t(w, True), t(b), 1, 1)), 2), 1)[:, :2],
                           t(target))
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    tf = torch.nn.functional
    theirs = tf.cross_entropy(tf.max_pool2d(tf.gelu(tf.conv2d(tx, tw, torch.tensor(b), 1, 1)), 2).flatten(1)[:, :2],
                              torch.tensor(target))
    np.testing.assert_allclose(ours.item(), theirs.item(), rtol=1e-10)


def test_batch_norm_training_and_eval():
    x = rng.standard_normal((4, 3, 2, 2))
    running_mean, running_var = t(np.zeros(3)), t(np.ones(3))
    out = F.batch_norm(t(x), running_mean, running_var, t(np.full(3, 2.0)), t(np.full(3, 0.5)), training=True)
    mu, var = x.mean(axis=(0, 2, 3)), x.var(axis=(0, 2, 3))
    want = (x - mu[None, :, None, None]) / np.sqrt(var[None, :, None, None] + 1e-5) * 2 + 0.5
    np.testing.assert_allclose(out.array, want, rtol=1e-10)
    np.testing.assert_allclose(running_mean.array, 0.1 * mu, rtol=1e-10)
    np.testing.assert_allclose(running_var.array, 0.9 + 0.1 * var * 16 / 15, rtol=1e-10)
    evaluated = F.batch_norm(t(x), running_mean, running_var, training=False)
    np.testing.assert_allclose(evaluated.array, (x - running_mean.array[None, :, None, None])
                               / np.sqrt(running_var.array[None, :, None, None] + 1e-5), rtol=1e-10)


def test_smooth_l1_and_huber():
    a, b = np.array([0.0, 0.5, 3.0]), np.array([0.2, 2.0, 0.0])
    d = np.abs(a - b)
    np.testing.assert_allclose(F.smooth_l1_loss(t(a), t(b)).item(), np.where(d < 1, 0.5 * d * d, d - 0.5).mean())
    np.testing.assert_allclose(F.huber_loss(t(a), t(b), delta=2.0).item(),
                               np.where(d < 2, 0.5 * d * d, 2 * (d - 1.0)).mean())


def test_small_cnn_end_to_end_gradients_match_finite_differences():
    """conv -> relu -> max_pool -> flatten -> linear -> cross_entropy, float64, every parameter."""
    r = np.random.default_rng(8)
    x, target = r.standard_normal((2, 1, 6, 6)), np.array([1, 0])
    values = {"w": r.standard_normal((3, 1, 3, 3)) * 0.5, "b": r.standard_normal(3) * 0.1,
              "fc": r.standard_normal((2, 12)) * 0.3, "fb": r.standard_normal(2) * 0.1}

    def loss_of(v, track=False):
        p = {k: t(a.copy(), track) for k, a in v.items()}
        h = F.max_pool2d(F.relu(F.conv2d(t(x), p["w"], p["b"], padding=1)), 3)
        loss = F.cross_entropy(F.linear(F.flatten(h, 1), p["fc"], p["fb"]), t(target))
        return loss, p

    loss, params = loss_of(values, track=True)
    loss.backward()
    for name, value in values.items():
        numeric = np.zeros_like(value)
        for idx in np.ndindex(value.shape):
            hi, lo = {k: a.copy() for k, a in values.items()}, {k: a.copy() for k, a in values.items()}
            hi[name][idx] += 1e-6
            lo[name][idx] -= 1e-6
            numeric[idx] = (loss_of(hi)[0].item() - loss_of(lo)[0].item()) / 2e-6
        np.testing.assert_allclose(params[name].grad.array, numeric, rtol=1e-5, atol=1e-7, err_msg=name)


def test_fused_layers_print_pytorchs_grad_fn_names():
    """One op each where PyTorch runs one fused kernel; adaptive pooling to 1x1 is a mean, as in PyTorch."""
    from engine.nn.pooling import adaptive_avg_pool2d
    x = t(rng.standard_normal((4, 3)), True)
    img = t(rng.standard_normal((1, 2, 5, 5)), True)
    names = {
        "LeakyReluBackward0": F.leaky_relu(x, 0.1), "SiluBackward0": F.silu(x),
        "NativeLayerNormBackward0": F.layer_norm(x, (3,)),
        "NativeBatchNormBackward0": F.batch_norm(x, None, None, training=True),
        "AdaptiveAvgPool2DBackward0": adaptive_avg_pool2d(img, (2, 3)), "MeanBackward1": adaptive_avg_pool2d(img, 1),
        "SortBackward0": F.sort(x, dim=0).values, "TopkBackward0": F.topk(x, 2).values,
        "SmoothL1LossBackward0": F.smooth_l1_loss(x, t(np.zeros((4, 3)))),
        "HuberLossBackward0": F.huber_loss(x, t(np.zeros((4, 3)))),
        "DivBackward1": F.cross_entropy(x, t(np.full((4, 3), 1 / 3))),
    }
    for name, out in names.items():
        assert out.grad_fn.name == name


def test_adaptive_avg_pool_bins_overlap_as_pytorchs():
    """Cell i of m over n rows averages rows floor(i n / m) .. ceil((i + 1) n / m) - 1."""
    from engine.nn.pooling import adaptive_avg_pool2d
    x = rng.standard_normal((1, 1, 5, 3))
    out = adaptive_avg_pool2d(t(x), (3, 2)).array[0, 0]
    rows, cols = [(0, 2), (1, 4), (3, 5)], [(0, 2), (1, 3)]
    want = [[x[0, 0, r0:r1, c0:c1].mean() for c0, c1 in cols] for r0, r1 in rows]
    np.testing.assert_allclose(out, want, rtol=1e-12)


def test_sort_topk_argsort():
    x = t(np.array([[3.0, 1.0, 2.0], [0.5, 2.5, -1.0]]), True)
    values, indices = F.sort(x, dim=1, descending=True)
    assert values.tolist() == [[3.0, 2.0, 1.0], [2.5, 0.5, -1.0]] and indices.tolist() == [[0, 2, 1], [1, 0, 2]]
    top = x.topk(2)
    assert top.values.tolist() == [[3.0, 2.0], [2.5, 0.5]] and top.indices.tolist() == [[0, 2], [1, 0]]
    assert x.topk(1, dim=0, largest=False).indices.tolist() == [[1, 0, 1]]
    top.values.sum().backward()
    assert x.grad.tolist() == [[1.0, 0.0, 1.0], [1.0, 1.0, 0.0]]
    assert F.argsort(t(np.array([2, 2, 1]))).tolist() == [2, 0, 1]        # stable


def _ones(*shape, dtype=np.float32):
    return t(np.ones(shape, dtype))


# Calls PyTorch refuses (several of which numpy would have answered with a wrong number), with its words.
_REFUSED = [
    (lambda: F.linear(_ones(2, 2, 3), _ones(2, 4)), RuntimeError, "mat1 and mat2 shapes cannot be multiplied (4x3 and 4x2)"),
    (lambda: F.linear(_ones(5, 2, 3), _ones(2, 3), _ones(3)), RuntimeError,
     "The expanded size of the tensor (2) must match the existing size (3) at non-singleton dimension 1.  "
     "Target sizes: [10, 2].  Tensor sizes: [3]"),
    (lambda: F.linear(t(np.float32(1)), _ones(2, 4)), RuntimeError, "at least 1D, but they are 0D and 2D"),
    (lambda: F.conv2d(_ones(5, 5), _ones(1, 1, 3, 3)), RuntimeError, "but got input of size: [5, 5]"),
    (lambda: F.conv2d(_ones(1, 1, 2, 2), _ones(1, 1, 5, 5), padding=1), RuntimeError,
     "Calculated padded input size per channel: (4 x 4). Kernel size: (5 x 5)."),
    (lambda: F.conv2d(_ones(1, 1, 4, 4), _ones(2, 1, 3, 3), _ones(3)), RuntimeError,
     "expected bias to be 1-dimensional with 2 elements, but got bias of size [3] instead"),
    (lambda: F.max_pool2d(_ones(4, 4), 2), RuntimeError, "non-empty 3D or 4D (batch mode) tensor expected for input"),
    (lambda: F.avg_pool2d(_ones(1, 1, 4, 4), 2, padding=2), RuntimeError, "but got pad=2, kernel_size=2"),
    (lambda: F.avg_pool2d(_ones(1, 1, 2, 2), 3), RuntimeError,
     "Given input size: (1x2x2). Calculated output size: (1x0x0). Output size is too small"),
    (lambda: F.nll_loss(_ones(2, 3), t(np.array([0, 1], np.int32))), RuntimeError,
     "expected target dtype to be Long or Byte, but got Int"),
    (lambda: F.nll_loss(_ones(2, 3), t(np.array([0, 1, 1]))), ValueError,
     "Expected input batch_size (2) to match target batch_size (3)."),
    (lambda: F.cross_entropy(_ones(2, 3, 4), t(np.zeros((2, 5), np.int64))), RuntimeError,
     "Expected target size [2, 4], got [2, 5]"),
    (lambda: F.cross_entropy(_ones(2, 3), t(np.array([0, 1])), weight=_ones(2)), RuntimeError,
     "weight tensor should be defined either for all 3 classes or no classes but got weight tensor of shape: [2]"),
    (lambda: F.cross_entropy(_ones(2, 3), t(np.ones((2, 3), np.int64))), RuntimeError,
     "Expected floating point type for target with class probabilities, got Long"),
    (lambda: F.binary_cross_entropy(_ones(2) * 0.5, _ones(2, dtype=np.float64)), RuntimeError,
     "Found dtype Double but expected Float"),
    (lambda: F.mse_loss(t(np.array([1, 2])), t(np.array([1, 3]))), NotImplementedError,
     "\"mse_cpu\" not implemented for 'Long'"),
    (lambda: F.huber_loss(_ones(1), _ones(1), delta=0.0), RuntimeError, "non-positive values for delta"),
    (lambda: F.smooth_l1_loss(_ones(1), _ones(1), beta=-1.0), RuntimeError, "negative values for beta"),
    (lambda: F.embedding(t(np.array([-1])), _ones(3, 2)), IndexError, "index out of range in self"),
    (lambda: F.embedding(t(np.array([3])), _ones(3, 2)), IndexError, "index out of range in self"),
    (lambda: F.embedding(_ones(1), _ones(3, 2)), RuntimeError, "but got torch.FloatTensor instead"),
    (lambda: F.one_hot(t(np.array([-1, 2]))), RuntimeError, "Class values must be non-negative."),
    (lambda: F.layer_norm(_ones(3, 2, 3), (2, 4)), RuntimeError,
     "Given normalized_shape=[2, 4], expected input with shape [*, 2, 4], but got input of size[3, 2, 3]"),
    (lambda: F.batch_norm(_ones(4, 2), _ones(3), _ones(3)), RuntimeError, "running_mean should contain 2 elements not 3"),
]


_REFUSED += [     # dtypes that do not match the parameters' (a float64 batch from numpy, a float32 model)
    (lambda: F.linear(_ones(2, 2, dtype=np.float64), _ones(1, 2), _ones(1)), RuntimeError,
     "mat1 and mat2 must have the same dtype, but got Double and Float"),
    (lambda: F.linear(_ones(2, 2, dtype=np.float64), _ones(1, 2)), RuntimeError,
     "expected m1 and m2 to have the same dtype, but got: double != float"),
    (lambda: F.conv2d(_ones(1, 1, 2, 2, dtype=np.int64), _ones(1, 1, 1, 1), _ones(1)), RuntimeError,
     "Input type (long int) and bias type (float) should be the same"),
    (lambda: F.conv2d(_ones(1, 1, 2, 2, dtype=np.float64), _ones(1, 1, 1, 1)), RuntimeError,
     "expected scalar type Double but found Float"),
    (lambda: F.layer_norm(_ones(1, 2, dtype=np.float64), (2,), _ones(2)), RuntimeError, "mixed dtype (CPU)"),
    (lambda: F.batch_norm(_ones(3, 2, dtype=np.int64), None, None, training=True), NotImplementedError,
     "\"batch_norm\" not implemented for 'Long'"),
    (lambda: F.softmax(t(np.array([[1, 2]])), dim=0), NotImplementedError, "\"softmax_kernel_impl\" not implemented"),
    (lambda: F.log_softmax(t(np.array([[1, 2]])), dim=1), NotImplementedError, "log_softmax_lastdim_kernel_impl"),
    (lambda: F.gelu(t(np.array([1], np.int32))), NotImplementedError, "\"GeluKernelImpl\" not implemented for 'Int'"),
    (lambda: F.cross_entropy(_ones(2, 3), t(np.array([0, 1])), label_smoothing=1.5), RuntimeError,
     "label_smoothing must be between 0.0 and 1.0. Got: 1.5"),
]


_REFUSED += [     # the fused ops' own checks, as PyTorch words them
    (lambda: F.layer_norm(_ones(2, 4), (4,), _ones(3)), RuntimeError,
     "Expected weight to be of same shape as normalized_shape, but got weight of shape [3] and "
     "normalized_shape = [4]"),
    (lambda: F.layer_norm(t(np.ones((2, 3), np.int64)), (3,)), NotImplementedError,
     "\"LayerNormKernelImpl\" not implemented for 'Long'"),
    (lambda: F.batch_norm(_ones(3, 2), None, None, training=False), RuntimeError,
     "running_mean must be defined in evaluation mode"),
    (lambda: F.batch_norm(_ones(4), None, None, training=True), IndexError, "Dimension out of range"),
    (lambda: F.smooth_l1_loss(t(np.array([1, 2])), t(np.array([1, 3]))), NotImplementedError,
     "\"smooth_l1_cpu\" not implemented for 'Long'"),
    (lambda: F.huber_loss(t(np.array([1, 2])), t(np.array([1, 3]))), NotImplementedError,
     "\"huber_cpu\" not implemented for 'Long'"),
    (lambda: F.silu(t(np.array([1, 2]))), NotImplementedError, "\"silu_cpu\" not implemented for 'Long'"),
    (lambda: F.leaky_relu(t(np.array([1, 2]))), NotImplementedError, "\"leaky_relu_cpu\" not implemented"),
]


def _adaptive_pool(*args):
    from engine.nn.pooling import adaptive_avg_pool2d
    return adaptive_avg_pool2d(*args)


_REFUSED += [
    (lambda: _adaptive_pool(_ones(3, 3), (2, 2)), ValueError, "Input dimension should be at least 3"),
    (lambda: _adaptive_pool(_ones(1, 1, 2, 3, 3), (2, 2)), RuntimeError,
     "adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got [1, 1, 2, 3, 3]"),
    (lambda: _adaptive_pool(_ones(2, 3, 0, 3), (2, 2)), RuntimeError,
     "but input has sizes [2, 3, 0, 3] with dimension 2 being empty"),
    (lambda: _adaptive_pool(_ones(1, 2, 3, 3), (2, 2, 2)), RuntimeError, "adaptive_avg_pool2d: output_size must be 2"),
    (lambda: _adaptive_pool(_ones(1, 2, 3, 3), (-1, 2)), RuntimeError,
     "elements of output_size must be greater than or equal to 0 but received {-1, 2}"),
    (lambda: _adaptive_pool(t(np.ones((1, 2, 3, 3), np.int64)), (2, 2)), NotImplementedError,
     "\"adaptive_avg_pool2d\" not implemented for 'Long'"),
]


@pytest.mark.parametrize("call,error,words", _REFUSED, ids=[w[:40] for _, _, w in _REFUSED])
def test_calls_pytorch_refuses_fail_with_its_words(call, error, words):
    with pytest.raises(error) as caught:
        call()
    assert words in str(caught.value)


def test_accepted_index_dtypes_still_work():
    weight = t(np.arange(6, dtype=np.float32).reshape(3, 2))
    np.testing.assert_array_equal(F.embedding(t(np.array([2], np.int32)), weight).array, [[4.0, 5.0]])
    loss = F.nll_loss(t(np.log(np.full((2, 3), 1 / 3))), t(np.array([0, 2], np.uint8)))
    np.testing.assert_allclose(loss.item(), np.log(3))


@pytest.mark.parametrize("p", [1, 2, 3, float("inf")])
def test_normalize_any_positive_p_and_its_gradient(p):
    data = np.array([[3.0, -4.0, 0.5], [0.0, 2.0, -1.0]])
    x = t(data.copy(), True)
    upstream = rng.standard_normal(data.shape)
    out = F.normalize(x, p=p, dim=1)
    norm = np.linalg.norm(data, ord=p, axis=1, keepdims=True)
    np.testing.assert_allclose(out.array, data / norm, rtol=1e-12)
    out.backward(t(upstream))

    def value(a):
        return float((a / np.linalg.norm(a, ord=p, axis=1, keepdims=True) * upstream).sum())
    numeric = np.zeros_like(data)
    for i in np.ndindex(data.shape):
        hi, lo = data.copy(), data.copy()
        hi[i] += 1e-6
        lo[i] -= 1e-6
        numeric[i] = (value(hi) - value(lo)) / 2e-6
    np.testing.assert_allclose(x.grad.array, numeric, rtol=1e-5, atol=1e-7)


def test_mse_promotes_an_integer_target_to_the_inputs_float_dtype():
    loss = F.mse_loss(t(np.array([1.0, 2.0], np.float32)), t(np.array([1, 3])))
    assert loss.array.dtype == np.float32 and loss.item() == 0.5


@pytest.mark.parametrize("a, b, want", [
    ((np.float32, (3,)), (np.float64, ()), np.float32),     # a 0-d tensor does not widen its kind
    ((np.int64, (3,)), (np.float64, ()), np.float64),       # ...but lifts the category
    ((np.int8, (3,)), (np.int64, ()), np.int8),
    ((np.bool_, (3,)), (np.int32, ()), np.int32),
    ((np.float32, ()), (np.float64, ()), np.float64),       # two 0-d tensors promote as usual
    ((np.float32, (3,)), (np.float64, (1,)), np.float64),   # a 1-element tensor has a dimension
])
def test_zero_dim_tensors_promote_as_pytorch(a, b, want):
    from engine.tensor import Tensor
    x = Tensor(np.ones(a[1], a[0]))
    y = Tensor(np.full(b[1], 2, b[0]))
    for out in (x * y, y + x, F.where(Tensor(np.array(True)), x, y), x ** y):
        assert out.array.dtype == np.dtype(want), (a, b, out.array.dtype)


@pytest.mark.parametrize("call, node", [
    (lambda h: F.relu(h, inplace=True), "ReluBackward0"),
    (lambda h: engine.nn.ReLU(inplace=True)(h), "ReluBackward0"),
    (lambda h: F.leaky_relu(h, 0.1, inplace=True), "LeakyReluBackward1"),    # PyTorch's in-place variant
    (lambda h: engine.nn.LeakyReLU(0.1, inplace=True)(h), "LeakyReluBackward1"),
    (lambda h: F.silu(h, inplace=True), "SiluBackward0"),
    (lambda h: engine.nn.SiLU(inplace=True)(h), "SiluBackward0")])
def test_inplace_activations_overwrite_and_return_their_input(call, node):
    data = np.array([-1.5, 0.0, 2.0])
    out_of_place = (F.relu if node.startswith("Relu") else F.silu if node.startswith("Silu")
                    else lambda v: F.leaky_relu(v, 0.1))
    plain = t(data.copy())
    assert call(plain) is plain
    np.testing.assert_array_equal(plain.array, out_of_place(t(data)).array)
    x = t(data.copy(), grad=True)
    h = x * 2.0
    out = call(h)
    assert out is h and type(h.grad_fn).__name__ == node
    reference = t(data.copy(), grad=True)
    expected = out_of_place(reference * 2.0)
    np.testing.assert_allclose(h.array, expected.array, rtol=1e-15)
    (out * t(np.array([1.0, 2.0, 3.0]))).sum().backward()
    (expected * t(np.array([1.0, 2.0, 3.0]))).sum().backward()
    np.testing.assert_allclose(x.grad.array, reference.grad.array, rtol=1e-15)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
        call(t(data.copy(), grad=True))


def test_mse_gradient_of_an_equal_target_is_positive_zero():
    """PyTorch computes the target's gradient as 2 (target - input) grad / n, not -grad_input."""
    p, y = t(np.array([1.0, 2.0, 3.0]), grad=True), t(np.array([0.0, 2.0, 5.0]), grad=True)
    F.mse_loss(p, y).backward()
    np.testing.assert_allclose(y.grad.array, [-2 / 3, 0.0, 4 / 3], rtol=1e-15)
    assert not np.signbit(y.grad.array[1]) and not np.signbit(p.grad.array[1])


@pytest.mark.parametrize("shape", [(2, 3, 4), (2, 3, 2, 2, 2), (2, 3, 0)])
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_nll_loss_of_more_than_two_dims_runs_the_image_kernel(shape, reduction):
    """PyTorch's nll_loss_nd views (N, C, ...) as (N, C, 1, rest) for NllLoss2D and views a
    per-position loss back: the grad_fn and values below are what it gives."""
    logits = rng.standard_normal(shape)
    target = rng.integers(0, 3, (shape[0],) + shape[2:])
    target.flat[:1] = -100      # (one ignored position, where there is one)
    x = t(logits, grad=True)
    loss = F.nll_loss(x, t(target), reduction=reduction)
    per = np.where(target == -100, 0.0, -np.take_along_axis(logits, np.maximum(target, 0)[:, None], 1)[:, 0])
    if reduction == "none":
        assert type(loss.grad_fn).__name__ == "ViewBackward0" and loss.shape == target.shape
        assert type(loss.grad_fn.next_functions[0][0]).__name__ == "NllLoss2DBackward0"
        np.testing.assert_allclose(loss.array, per, rtol=1e-15)
    else:
        assert type(loss.grad_fn).__name__ == "NllLoss2DBackward0"
        want = per.sum() / (target != -100).sum() if reduction == "mean" else per.sum()
        np.testing.assert_allclose(loss.array, want, rtol=1e-12)
    loss.sum().backward()
    expected = np.zeros(shape)
    scale = 1.0 / max((target != -100).sum(), 1) if reduction == "mean" else 1.0
    for index in np.ndindex(target.shape):
        if target[index] != -100:
            expected[(index[0], target[index]) + index[1:]] = -scale
    np.testing.assert_allclose(x.grad.array, expected, rtol=1e-12)


# F.dropout(torch.ones(12), 0.5) after torch.manual_seed(0), as torch 2.13 printed it
PYTORCH_DROPOUT_MASK = [0, 0, 2, 0, 0, 0, 2, 2, 0, 2, 2, 2]


@pytest.mark.torch
def test_the_stored_dropout_mask_is_real_pytorchs(real_torch):
    real_torch.manual_seed(0)
    assert real_torch.nn.functional.dropout(real_torch.ones(12), 0.5).tolist() == PYTORCH_DROPOUT_MASK


def test_dropout_draws_pytorchs_mask_and_can_work_in_place():
    """The masks torch 2.13 printed after manual_seed(0); p = 1 draws no random numbers."""
    engine.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(t(np.ones(12, np.float32)), 0.5).array, PYTORCH_DROPOUT_MASK)
    engine.manual_seed(0)
    after_seed = engine.rand(2).array
    engine.manual_seed(0)
    np.testing.assert_array_equal(F.dropout(t(np.ones(5, np.float32)), 1.0).array, np.zeros(5))
    np.testing.assert_array_equal(engine.rand(2).array, after_seed)
    w = t(np.ones(5, np.float32), True)
    h = w * 3.0
    engine.manual_seed(0)
    assert F.dropout(h, 0.4, inplace=True) is h and type(h.grad_fn).__name__ == "MulBackward0"
    kept = h.array != 0
    np.testing.assert_allclose(h.array[kept], 5.0, rtol=1e-6)
    h.sum().backward()
    np.testing.assert_allclose(w.grad.array, np.where(kept, 5.0, 0.0), rtol=1e-6)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_label_smoothing_with_class_weights_and_ignored_targets(reduction):
    """PyTorch's cross_entropy_loss_label_smoothing: (1 - e) nll + e / C * sum_c -w_c logp_c, 0 at
    ignored targets; 'mean' divides both parts by the weight of the counted targets."""
    logits, weight, e = rng.standard_normal((5, 3, 2)), np.array([1.0, 2.0, 0.5]), 0.2
    target = rng.integers(0, 3, (5, 2))
    target[1, 0] = -100
    logp = _log_softmax(logits, axis=1)
    counted = target != -100
    safe = np.where(counted, target, 0)
    picked = np.take_along_axis(logp, safe[:, None], 1)[:, 0]
    nll = np.where(counted, -weight[safe] * picked, 0.0)
    smooth = np.where(counted, -(logp * weight[None, :, None]).sum(1), 0.0)
    if reduction == "mean":
        nll, smooth = nll.sum() / weight[safe][counted].sum(), smooth.sum() / weight[safe][counted].sum()
    elif reduction == "sum":
        nll, smooth = nll.sum(), smooth.sum()
    x = t(logits, grad=True)
    loss = F.cross_entropy(x, t(target), weight=t(weight), reduction=reduction, label_smoothing=e)
    np.testing.assert_allclose(loss.array, (1 - e) * nll + e / 3 * smooth, rtol=1e-12)
    assert type(loss.grad_fn).__name__ == "AddBackward0"


def test_a_class_weight_that_requires_grad_is_refused_as_pytorch_does():
    w = t(np.ones(3), grad=True)
    for logits, kernel in ((np.zeros((2, 3)), "nll_loss_forward"), (np.zeros((2, 3, 2)), "nll_loss2d_forward")):
        target = t(np.zeros((2,) + logits.shape[2:], np.int64))
        with pytest.raises(RuntimeError, match=f"The function '{kernel}' is not differentiable with respect to "
                                               "argument 'weight'"):
            F.cross_entropy(t(logits), target, weight=w)
    with engine.no_grad():
        assert F.nll_loss(t(np.zeros((2, 3))), t(np.array([0, 1])), weight=w).item() == 0.0


@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss, F.huber_loss, lambda a, b: F.smooth_l1_loss(a, b, beta=0.0)])
def test_pointwise_losses_warn_once_when_the_target_broadcasts(loss):
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        loss(t(np.ones((2, 3))), t(np.ones((2, 3))))
        assert not caught
        assert loss(t(np.ones((2, 3))), t(np.ones(3))).item() == 0.0
    (warning,) = caught
    assert str(warning.message).startswith("Using a target size (torch.Size([3])) that is different to the input "
                                           "size (torch.Size([2, 3])).")


@pytest.mark.parametrize("name", ["sum", "mean", "var", "std", "amax", "amin", "max", "min", "argmax", "argmin",
                                  "logsumexp"])
def test_reductions_take_numpys_axis_and_keepdims_as_pytorch(name):
    import engine.functional as F
    x = Tensor(np.arange(6.0, dtype=np.float32).reshape(2, 3))
    numpy_style, torch_style = getattr(F, name)(x, axis=1, keepdims=True), getattr(F, name)(x, dim=1, keepdim=True)
    if name in ("max", "min"):
        numpy_style, torch_style = numpy_style.values, torch_style.values
    assert numpy_style.shape == (2, 1) and numpy_style.tolist() == torch_style.tolist()


def test_cat_and_stack_take_axis():
    import engine.functional as F
    x = Tensor(np.ones((2, 3), np.float32))
    assert F.cat([x, x], axis=1).shape == (2, 6) and F.stack([x, x], axis=2).shape == (2, 3, 2)
