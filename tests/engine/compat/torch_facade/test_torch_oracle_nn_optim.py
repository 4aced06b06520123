"""Differential tests against real PyTorch (skipped when it is not installed): module reprs,
optimizer updates and layer outputs from identical weights and gradients."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

from engine import nn, optim  # noqa: E402
from engine.tensor import Tensor  # noqa: E402


def _module_pairs():
    return [(nn.Linear(4, 3), torch.nn.Linear(4, 3)), (nn.Conv2d(3, 8, 3, padding=1), torch.nn.Conv2d(3, 8, 3, padding=1)),
            (nn.LayerNorm(5), torch.nn.LayerNorm(5)), (nn.BatchNorm1d(4), torch.nn.BatchNorm1d(4)),
            (nn.Dropout(0.3), torch.nn.Dropout(0.3)), (nn.GELU(), torch.nn.GELU()), (nn.Softmax(dim=1), torch.nn.Softmax(dim=1)),
            (nn.Embedding(10, 3), torch.nn.Embedding(10, 3)), (nn.Flatten(), torch.nn.Flatten()),
            (nn.MaxPool2d(2), torch.nn.MaxPool2d(2)), (nn.CrossEntropyLoss(), torch.nn.CrossEntropyLoss()),
            (nn.Sequential(nn.Linear(2, 2), nn.ReLU()), torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())),
            (nn.ModuleList([nn.Linear(2, 2)] * 3), torch.nn.ModuleList([torch.nn.Linear(2, 2)] * 3))]


@pytest.mark.parametrize("ours,theirs", _module_pairs())
def test_module_repr_equals_pytorch(ours, theirs):
    assert repr(ours) == repr(theirs)


def _copy_weights(ours, theirs):
    with torch.no_grad():
        for (_, p), (_, q) in zip(ours.named_parameters(), theirs.named_parameters()):
            q.copy_(torch.from_numpy(p.array.copy()))


def test_linear_and_conv_outputs_equal_pytorch():
    rng = np.random.default_rng(0)
    for ours, theirs, shape in [(nn.Linear(4, 3), torch.nn.Linear(4, 3), (5, 4)),
                                (nn.Conv2d(2, 3, 3, stride=2, padding=1), torch.nn.Conv2d(2, 3, 3, stride=2, padding=1),
                                 (2, 2, 7, 7))]:
        _copy_weights(ours, theirs)
        x = rng.standard_normal(shape).astype(np.float32)
        np.testing.assert_allclose(ours(Tensor(x)).array, theirs(torch.from_numpy(x)).detach().numpy(),
                                   rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("name,kw", [("SGD", {"lr": 0.1, "momentum": 0.9, "nesterov": True, "weight_decay": 0.01}),
                                     ("SGD", {"lr": 0.1, "momentum": 0.5, "dampening": 0.2}),
                                     ("Adam", {"lr": 0.01, "weight_decay": 0.1}), ("Adam", {"lr": 0.01, "amsgrad": True}),
                                     ("AdamW", {"lr": 0.01}), ("RMSprop", {"lr": 0.01, "momentum": 0.9, "centered": True}),
                                     ("Adagrad", {"lr": 0.1, "lr_decay": 0.01}),
                                     ("Adadelta", {"lr": 0.5, "weight_decay": 0.1}), ("Adamax", {"lr": 0.05}),
                                     ("NAdam", {"lr": 0.05, "weight_decay": 0.1}),
                                     ("NAdam", {"lr": 0.05, "decoupled_weight_decay": True, "weight_decay": 0.1}),
                                     ("RAdam", {"lr": 0.05}), ("RAdam", {"lr": 0.05, "betas": (0.9, 0.5)}),
                                     ("ASGD", {"lr": 0.05, "t0": 2}), ("Rprop", {"lr": 0.05}),
                                     ("Rprop", {"lr": 0.05, "maximize": True, "step_sizes": (0.01, 0.06)})])
def test_optimizer_updates_equal_pytorch(name, kw):
    rng = np.random.default_rng(1)
    p0 = rng.standard_normal((3, 4)).astype(np.float32)
    grads = [rng.standard_normal((3, 4)).astype(np.float32) for _ in range(5)]
    ours = nn.Parameter(Tensor(p0.copy()))
    theirs = torch.nn.Parameter(torch.from_numpy(p0.copy()))
    opt_ours, opt_theirs = getattr(optim, name)([ours], **kw), getattr(torch.optim, name)([theirs], **kw)
    for g in grads:
        ours.grad = Tensor(g.copy())
        theirs.grad = torch.from_numpy(g.copy())
        opt_ours.step()
        opt_theirs.step()
    np.testing.assert_allclose(ours.array, theirs.detach().numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_recurrent_outputs_equal_pytorch(name):
    kw = {"num_layers": 2, "batch_first": True, "bidirectional": True}
    ours, theirs = getattr(nn, name)(3, 4, **kw), getattr(torch.nn, name)(3, 4, **kw)
    assert repr(ours) == repr(theirs)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    _copy_weights(ours, theirs)
    x = np.random.default_rng(2).standard_normal((2, 5, 3)).astype(np.float32)
    out, _ = ours(Tensor(x))
    ref, _ = theirs(torch.from_numpy(x))
    np.testing.assert_allclose(out.array, ref.detach().numpy(), rtol=1e-4, atol=1e-5)


def test_attention_layers_equal_pytorch():
    rng = np.random.default_rng(5)
    x = rng.standard_normal((2, 5, 8)).astype(np.float32)
    pairs = [(nn.MultiheadAttention(8, 2, batch_first=True), torch.nn.MultiheadAttention(8, 2, batch_first=True)),
             (nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval(),
              torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True).eval())]
    for ours, theirs in pairs:
        assert repr(ours) == repr(theirs)
        assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
        _copy_weights(ours, theirs)
        if isinstance(ours, nn.MultiheadAttention):
            out, ref = ours(Tensor(x), Tensor(x), Tensor(x))[0], theirs(*(torch.from_numpy(x),) * 3)[0]
        else:
            out, ref = ours(Tensor(x)), theirs(torch.from_numpy(x))
        np.testing.assert_allclose(out.array, ref.detach().numpy(), rtol=1e-4, atol=1e-5)
