"""Optimizers against PyTorch's update formulas, re-derived here in plain numpy (float64 reference)."""
import math

import numpy as np
import pytest

from engine import creation, nn, optim
from engine.optim import lr_scheduler
from engine.tensor import Tensor

STEPS = 5


def _grads(shape, seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(shape).astype(np.float32) for _ in range(STEPS)]


def _run(make_opt, p0, grads):
    p = nn.Parameter(Tensor(p0.copy()))
    opt = make_opt([p])
    for g in grads:
        opt.zero_grad()
        p.grad = Tensor(g.copy())
        opt.step()
    return p.array


def _sgd_reference(p, grads, lr, momentum=0.0, dampening=0.0, wd=0.0, nesterov=False, maximize=False):
    p, buf = p.astype(np.float64), None
    for g in grads:
        g = -g.astype(np.float64) if maximize else g.astype(np.float64)
        g = g + wd * p
        if momentum:
            buf = g.copy() if buf is None else momentum * buf + (1 - dampening) * g
            g = g + momentum * buf if nesterov else buf
        p = p - lr * g
    return p


def _adam_reference(p, grads, lr, b1=0.9, b2=0.999, eps=1e-8, wd=0.0, decoupled=False, amsgrad=False):
    p = p.astype(np.float64)
    m = np.zeros_like(p)
    v = np.zeros_like(p)
    vmax = np.zeros_like(p)
    for t, g in enumerate(grads, 1):
        g = g.astype(np.float64)
        if decoupled:
            p = p * (1 - lr * wd)
        else:
            g = g + wd * p
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        vmax = np.maximum(vmax, v)
        vhat = (vmax if amsgrad else v) / (1 - b2 ** t)
        p = p - lr * (m / (1 - b1 ** t)) / (np.sqrt(vhat) + eps)
    return p


P0 = np.random.default_rng(42).standard_normal((3, 4)).astype(np.float32)


@pytest.mark.parametrize("kw", [
    {}, {"momentum": 0.9}, {"momentum": 0.9, "dampening": 0.3}, {"momentum": 0.9, "nesterov": True},
    {"momentum": 0.5, "weight_decay": 0.1}, {"weight_decay": 0.01, "maximize": True}])
def test_sgd_matches_pytorch_formula(kw):
    got = _run(lambda ps: optim.SGD(ps, lr=0.1, **kw), P0, _grads(P0.shape))
    ref_kw = {"momentum": kw.get("momentum", 0.0), "dampening": kw.get("dampening", 0.0),
              "wd": kw.get("weight_decay", 0.0), "nesterov": kw.get("nesterov", False),
              "maximize": kw.get("maximize", False)}
    np.testing.assert_allclose(got, _sgd_reference(P0, _grads(P0.shape), 0.1, **ref_kw), rtol=1e-5, atol=1e-6)
    assert got.dtype == np.float32


@pytest.mark.parametrize("kw", [{}, {"weight_decay": 0.1}, {"amsgrad": True}, {"betas": (0.8, 0.99), "eps": 1e-6}])
def test_adam_matches_pytorch_formula(kw):
    got = _run(lambda ps: optim.Adam(ps, lr=0.01, **kw), P0, _grads(P0.shape, 1))
    b1, b2 = kw.get("betas", (0.9, 0.999))
    ref = _adam_reference(P0, _grads(P0.shape, 1), 0.01, b1, b2, kw.get("eps", 1e-8), kw.get("weight_decay", 0.0),
                          amsgrad=kw.get("amsgrad", False))
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_adamw_decouples_weight_decay():
    got = _run(lambda ps: optim.AdamW(ps, lr=0.01), P0, _grads(P0.shape, 2))
    ref = _adam_reference(P0, _grads(P0.shape, 2), 0.01, wd=0.01, decoupled=True)
    np.testing.assert_allclose(got, ref, rtol=1e-5, atol=1e-6)


def test_first_adam_step_moves_each_weight_by_lr():
    p = nn.Parameter(creation.tensor([1.0, -2.0]))
    opt = optim.Adam([p], lr=0.1)
    p.grad = creation.tensor([3.0, -0.5])
    opt.step()
    np.testing.assert_allclose(p.array, [0.9, -1.9], rtol=1e-6)
    assert repr(opt.state[p]["step"]) == "tensor(1.)"


def test_parameters_without_grad_are_skipped_and_zero_grad_sets_none():
    a, b = nn.Parameter(creation.ones(2)), nn.Parameter(creation.ones(2))
    opt = optim.SGD([a, b], lr=1.0, momentum=0.9)
    a.grad = creation.ones(2)
    opt.step()
    assert a.array.tolist() == [0.0, 0.0] and b.array.tolist() == [1.0, 1.0] and b not in opt.state
    opt.zero_grad()
    assert a.grad is None
    a.grad = creation.ones(2)
    opt.zero_grad(set_to_none=False)
    assert a.grad.array.tolist() == [0.0, 0.0]


def test_step_changes_parameters_in_place():
    p = nn.Parameter(creation.ones(2))
    frozen = p.detach()
    p.grad = creation.ones(2)
    optim.SGD([p], lr=0.5).step()
    assert frozen.array.tolist() == [0.5, 0.5]      # a detached view sees the update, as in PyTorch


def test_param_groups_and_repr():
    a, b = nn.Parameter(creation.ones(1)), nn.Parameter(creation.ones(1))
    opt = optim.SGD([{"params": [a]}, {"params": [b], "lr": 0.5}], lr=0.1, momentum=0.9)
    assert [g["lr"] for g in opt.param_groups] == [0.1, 0.5]
    a.grad, b.grad = creation.ones(1), creation.ones(1)
    opt.step()
    np.testing.assert_allclose([a.array[0], b.array[0]], [0.9, 0.5])
    assert repr(optim.Adam([a], lr=0.001)) == (
        "Adam (\nParameter Group 0\n    amsgrad: False\n    betas: (0.9, 0.999)\n    capturable: False\n"
        "    decoupled_weight_decay: False\n    differentiable: False\n    eps: 1e-08\n    foreach: None\n"
        "    fused: None\n    lr: 0.001\n    maximize: False\n    weight_decay: 0\n)")


def test_state_dict_roundtrip():
    p = nn.Parameter(creation.ones(2))
    opt = optim.Adam([p], lr=0.1)
    p.grad = creation.ones(2)
    opt.step()
    sd = opt.state_dict()
    assert sd["param_groups"][0]["params"] == [0] and set(sd["state"][0]) == {"step", "exp_avg", "exp_avg_sq"}
    q = nn.Parameter(creation.ones(2))
    opt2 = optim.Adam([q], lr=0.5)
    opt2.load_state_dict(sd)
    assert opt2.param_groups[0]["lr"] == 0.1 and float(opt2.state[q]["step"].array) == 1.0


def test_argument_errors_like_pytorch():
    with pytest.raises(ValueError, match="optimizer got an empty parameter list"):
        optim.SGD([], lr=0.1)
    with pytest.raises(ValueError, match="Nesterov momentum requires a momentum and zero dampening"):
        optim.SGD([nn.Parameter(creation.ones(1))], lr=0.1, nesterov=True)
    x = creation.ones(1, requires_grad=True)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        optim.SGD([x * 2], lr=0.1)


def test_schedulers():
    p = nn.Parameter(creation.ones(1))
    opt = optim.SGD([p], lr=1.0)
    sched = lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    lrs = []
    for _ in range(5):
        lrs.append(sched.get_last_lr()[0])
        opt.step()
        sched.step()
    assert lrs == [1.0, 1.0, 0.5, 0.5, 0.25]
    opt2 = optim.SGD([nn.Parameter(creation.ones(1))], lr=1.0)
    cos = lr_scheduler.CosineAnnealingLR(opt2, T_max=4)
    for _ in range(2):
        cos.step()
    assert math.isclose(cos.get_last_lr()[0], 0.5)



def test_schedulers_chain_and_follow_a_hand_set_rate():
    # PyTorch's schedulers rescale the current rate: two on one optimizer multiply, and a rate set by
    # hand carries on (a closed form of the epoch count would undo both).
    opt = optim.SGD([nn.Parameter(creation.ones(1))], lr=1.0)
    step, expo = lr_scheduler.StepLR(opt, step_size=1, gamma=0.5), lr_scheduler.ExponentialLR(opt, gamma=0.9)
    for _ in range(2):
        opt.step()
        step.step()
        expo.step()
    assert math.isclose(opt.param_groups[0]["lr"], (0.5 * 0.9) ** 2)
    opt.param_groups[0]["lr"] = 5.0
    step.step()
    assert opt.param_groups[0]["lr"] == 2.5 and step.get_last_lr() == [2.5]
    step.step(epoch=4)          # an explicit epoch: the closed form from the initial rate
    assert opt.param_groups[0]["lr"] == 1.0 * 0.5 ** 4
    linear = lr_scheduler.LinearLR(optim.SGD([nn.Parameter(creation.ones(1))], lr=1.0), start_factor=0.25,
                                   total_iters=3)
    rates = [linear.get_last_lr()[0]]
    for _ in range(4):
        linear.optimizer.step()
        linear.step()
        rates.append(linear.get_last_lr()[0])
    assert rates == [0.25, 0.5, 0.75, 1.0, 1.0]

def _rmsprop_reference(p, grads, lr, alpha=0.99, eps=1e-8, momentum=0.0, centered=False):
    p = p.astype(np.float64)
    v, mean_g, buf = np.zeros_like(p), np.zeros_like(p), np.zeros_like(p)
    for g in grads:
        g = g.astype(np.float64)
        v = alpha * v + (1 - alpha) * g * g
        mean_g = alpha * mean_g + (1 - alpha) * g
        avg = np.sqrt(v - mean_g ** 2 if centered else v) + eps
        if momentum:
            buf = momentum * buf + g / avg
            p = p - lr * buf
        else:
            p = p - lr * g / avg
    return p


@pytest.mark.parametrize("kw", [{}, {"momentum": 0.9}, {"centered": True}])
def test_rmsprop_matches_pytorch_formula(kw):
    got = _run(lambda ps: optim.RMSprop(ps, lr=0.01, **kw), P0, _grads(P0.shape, 3))
    np.testing.assert_allclose(got, _rmsprop_reference(P0, _grads(P0.shape, 3), 0.01, **kw), rtol=1e-5, atol=1e-6)


def test_adagrad_matches_pytorch_formula():
    got = _run(lambda ps: optim.Adagrad(ps, lr=0.1, lr_decay=0.01), P0, _grads(P0.shape, 4))
    p, s = P0.astype(np.float64), np.zeros(P0.shape)
    for t, g in enumerate(_grads(P0.shape, 4), 1):
        s = s + g.astype(np.float64) ** 2
        p = p - 0.1 / (1 + (t - 1) * 0.01) * g / (np.sqrt(s) + 1e-10)
    np.testing.assert_allclose(got, p, rtol=1e-5, atol=1e-6)


def test_reduce_lr_on_plateau():
    opt = optim.SGD([nn.Parameter(creation.ones(1))], lr=1.0)
    sched = lr_scheduler.ReduceLROnPlateau(opt, patience=1, factor=0.5)
    lrs = []
    for metric in [5.0, 4.0, 4.0, 4.0, 4.0, 4.0, 3.0]:
        sched.step(metric)
        lrs.append(opt.param_groups[0]["lr"])
    assert lrs == [1.0, 1.0, 1.0, 0.5, 0.5, 0.25, 0.25]


def test_plain_sgd_keeps_no_state():
    p = nn.Parameter(creation.ones(2))
    opt = optim.SGD([p], lr=0.1)
    p.grad = creation.ones(2)
    opt.step()
    assert opt.state_dict()["state"] == {}
    assert list(opt.state_dict()["param_groups"][0]) == ["lr", "momentum", "dampening", "weight_decay", "nesterov",
                                                         "maximize", "foreach", "differentiable", "fused", "params"]


def test_a_step_before_backward_is_caught_as_an_inplace_change(run):
    rec = run("import torch\nw = torch.ones(2, requires_grad=True)\ny = (w * w).sum()\n"
              "opt = torch.optim.SGD([w], lr=0.1)\nw.grad = torch.ones(2)\nopt.step()\ny.backward()\n")
    assert rec["error"]["kind"] == "runtime_error" and rec["error"]["line"] == 7
    assert "modified by an inplace operation" in rec["error"]["message"]
