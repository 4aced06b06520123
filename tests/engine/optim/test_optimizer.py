"""Optimizers as PyTorch's: a one-element tensor learning rate steps with its value (it corrupted the
parameter before), RMSprop's defaults in PyTorch's key order (as `print(opt.defaults)` shows), and
load_state_dict keeps the loaded state tensors (shared, as in PyTorch), cast to the parameter's dtype."""
import numpy as np
import pytest

from engine import nn, optim
from engine.tensor import Tensor


def _weights_after_two_steps(make_optimizer, lr):
    layer = nn.Linear(2, 1)
    layer.weight.array[...] = np.array([[0.5, -0.25]], np.float32)
    layer.bias.array[...] = 0.1
    opt = make_optimizer(layer.parameters(), lr)
    for _ in range(2):
        opt.zero_grad()
        layer(Tensor(np.ones((1, 2), np.float32))).pow(2).sum().backward()
        opt.step()
    return layer.weight.array


@pytest.mark.parametrize("make", [
    lambda params, lr: optim.SGD(params, lr=lr),
    lambda params, lr: optim.SGD(params, lr=lr, momentum=0.9, weight_decay=0.1),
    lambda params, lr: optim.Adam(params, lr=lr),
    lambda params, lr: optim.AdamW(params, lr=lr, amsgrad=True),
    lambda params, lr: optim.RMSprop(params, lr=lr, centered=True, momentum=0.5),
    lambda params, lr: optim.Adagrad(params, lr=lr),
])
def test_a_tensor_learning_rate_steps_as_its_number(make):
    expected = _weights_after_two_steps(make, 0.1)
    got = _weights_after_two_steps(make, Tensor(np.array(0.1, np.float32)))
    assert got.dtype == np.float32 and got.shape == (1, 2)
    np.testing.assert_allclose(got, expected, rtol=1e-6)


def test_the_tensor_learning_rate_stays_in_the_group():
    lr = Tensor(np.array([0.1], np.float32))
    opt = optim.SGD(nn.Linear(2, 1).parameters(), lr=lr)
    opt.step()
    assert opt.param_groups[0]["lr"] is lr


# RMSprop's defaults as PyTorch 2.13 lists them (test_the_stored_order_is_real_pytorchs checks it with real torch)
PYTORCH_RMSPROP_DEFAULTS = ["lr", "momentum", "alpha", "eps", "centered", "weight_decay", "capturable", "foreach",
                            "maximize", "differentiable"]


def test_rmsprop_defaults_are_in_pytorchs_order():
    opt = optim.RMSprop(nn.Linear(2, 1).parameters())
    assert list(opt.defaults) == PYTORCH_RMSPROP_DEFAULTS


@pytest.mark.torch
def test_the_stored_order_is_real_pytorchs(real_torch):
    assert list(real_torch.optim.RMSprop(real_torch.nn.Linear(2, 1).parameters()).defaults) == PYTORCH_RMSPROP_DEFAULTS


def _adam_after_two_steps(dtype=np.float32):
    layer = nn.Linear(2, 1)
    if dtype != np.float32:
        for p in layer.parameters():
            p.array = p.array.astype(dtype)
    opt = optim.Adam(layer.parameters(), lr=0.1)
    for _ in range(2):
        opt.zero_grad()
        layer(Tensor(np.ones((1, 2), dtype))).pow(2).sum().backward()
        opt.step()
    return layer, opt


def test_load_state_dict_shares_the_loaded_tensors_as_pytorch_does():
    layer, opt = _adam_after_two_steps()
    saved = opt.state_dict()
    other = optim.Adam(layer.parameters(), lr=0.1)
    other.load_state_dict(saved)
    assert other.state[layer.weight]["exp_avg"] is opt.state[layer.weight]["exp_avg"]
    assert other.state[layer.weight]["step"] is saved["state"][0]["step"]


def test_load_state_dict_casts_floating_state_to_the_parameters_dtype_but_not_step():
    layer64, opt64 = _adam_after_two_steps(np.float64)
    assert opt64.state[layer64.weight]["exp_avg"].array.dtype == np.float64
    layer32 = nn.Linear(2, 1)
    opt32 = optim.Adam(layer32.parameters(), lr=0.1)
    opt32.load_state_dict(opt64.state_dict())
    state = opt32.state[layer32.weight]
    assert state["exp_avg"].array.dtype == np.float32 and state["exp_avg_sq"].array.dtype == np.float32
    assert state["step"] is opt64.state_dict()["state"][0]["step"]


@pytest.mark.torch
def test_pytorch_shares_and_casts_loaded_state_the_same_way(real_torch):
    def adam_after_two_steps(dtype):
        layer = real_torch.nn.Linear(2, 1).to(dtype)
        opt = real_torch.optim.Adam(layer.parameters(), lr=0.1)
        for _ in range(2):
            opt.zero_grad()
            layer(real_torch.ones(1, 2, dtype=dtype)).pow(2).sum().backward()
            opt.step()
        return layer, opt

    layer, opt = adam_after_two_steps(real_torch.float32)
    saved = opt.state_dict()
    other = real_torch.optim.Adam(layer.parameters(), lr=0.1)
    other.load_state_dict(saved)
    assert other.state[layer.weight]["exp_avg"] is opt.state[layer.weight]["exp_avg"]
    assert other.state[layer.weight]["step"] is saved["state"][0]["step"]
    layer64, opt64 = adam_after_two_steps(real_torch.float64)
    layer32 = real_torch.nn.Linear(2, 1)
    opt32 = real_torch.optim.Adam(layer32.parameters(), lr=0.1)
    saved64 = opt64.state_dict()
    opt32.load_state_dict(saved64)
    state = opt32.state[layer32.weight]
    assert state["exp_avg"].dtype == state["exp_avg_sq"].dtype == real_torch.float32
    assert state["step"] is saved64["state"][0]["step"]
