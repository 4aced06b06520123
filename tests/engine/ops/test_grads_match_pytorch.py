"""Gradients where formulas meet 0/0, ties or infinities, and second derivatives, equal PyTorch 2.13's.

Each case is an expression of `t` (with `torch` and `F` = torch.nn.functional); the gradients real torch 2.13
computed for it are stored here, so the test runs without torch. Where real torch is importable, the
stored values are also checked against it now.
"""
from __future__ import annotations

import numpy as np
import pytest

# (name, expression, input values, gradient of expression.sum() with respect to t)
FIRST = [
    ('max() tie', 't.max()', [1.0, 3.0, 3.0], [0.0, 0.5, 0.5]),
    ('max(0) tie', 't.max(0).values', [1.0, 3.0, 3.0], [0.0, 1.0, 0.0]),
    ('min() tie', 't.min()', [1.0, 1.0, 3.0], [0.5, 0.5, 0.0]),
    ('amax tie', 't.amax(0)', [3.0, 3.0, 1.0], [0.5, 0.5, 0.0]),
    ('amin tie', 't.amin()', [1.0, 1.0, 3.0], [0.5, 0.5, 0.0]),
    ('max(dim) tie', 't.reshape(1, 3).max(1).values', [3.0, 3.0, 1.0], [1.0, 0.0, 0.0]),
    ('abs at 0', 't.abs()', [0.0, -1.0, 1.0], [0.0, -1.0, 1.0]),
    ('sqrt at 0', 't.sqrt()', [0.0, 1.0, 4.0], [float('inf'), 0.5, 0.25]),
    ('relu at 0', 't.relu()', [0.0, -1.0, 1.0], [0.0, 0.0, 1.0]),
    ('leaky_relu at 0', 'F.leaky_relu(t, 0.1)', [0.0, -1.0, 1.0], [0.1, 0.1, 1.0]),
    ('clamp at its bounds', 't.clamp(0.0, 1.0)', [0.0, 1.0, 0.5], [1.0, 1.0, 1.0]),
    ('x ** 0.5 at 0', 't ** 0.5', [0.0, 1.0, 4.0], [float('inf'), 0.5, 0.25]),
    ('x ** 1.5 at 0', 't ** 1.5', [0.0, 1.0, 4.0], [0.0, 1.5, 3.0]),
    ('x ** x at 0', 't ** t', [0.0, 1.0, 2.0], [0.0, 1.0, 6.772589]),
    ('0 ** x', 'torch.zeros(3) ** t', [0.0, 1.0, 2.0], [0.0, 0.0, 0.0]),
    ('x ** y, negative base', 't ** torch.tensor([2.0, 0.5, 0.0])', [-1.0, 0.0, 0.0], [-2.0, float('inf'), 0.0]),
    ('log at 0', 't.log()', [0.0, 1.0, 2.0], [float('inf'), 1.0, 0.5]),
    ('std of one', 't[:1].std()', [1.0, 2.0, 3.0], [float('nan'), 0.0, 0.0]),
    ('var of one', 't[:1].var()', [1.0, 2.0, 3.0], [float('nan'), 0.0, 0.0]),
    ('var of a constant', 't.var(correction=0)', [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]),
    ('std of a constant row', 't.reshape(3, 1).expand(3, 2).std(1)', [2.0, 3.0, 4.0], [0.0, 0.0, 0.0]),
    ('sign', 't.sign()', [0.0, -1.0, 1.0], [0.0, 0.0, 0.0]),
    ('softmax with -inf', 'F.softmax(t, 0)', [float('-inf'), 0.0, 1.0], [0.0, 0.0, 0.0]),
    ('softmax all -inf', 'F.softmax(t, 0)',
     [float('-inf'), float('-inf'), float('-inf')], [float('nan'), float('nan'), float('nan')]),
    ('log_softmax with -inf', 'F.log_softmax(t, 0) * torch.tensor([0.0, 1.0, 1.0])',
     [float('-inf'), 0.0, 1.0], [0.0, 0.462117, -0.462117]),
    ('logsumexp all -inf', 'torch.logsumexp(t, 0)',
     [float('-inf'), float('-inf'), float('-inf')], [float('nan'), float('nan'), float('nan')]),
    ('logsumexp large', 'torch.logsumexp(t, 0)', [1000.0, 1000.0, 0.0], [0.499985, 0.499985, 0.0]),
    ('1-norm at 0', 'torch.norm(t, p=1)', [0.0, -1.0, 1.0], [0.0, -1.0, 1.0]),
    ('inf-norm tie', "torch.norm(t, p=float('inf'))", [3.0, -3.0, 1.0], [0.5, -0.5, 0.0]),
    ('normalize zeros', 'F.normalize(t.reshape(1, 3))',
     [0.0, 0.0, 0.0], [999999995904.0, 999999995904.0, 999999995904.0]),
    ('normalize inf tie', "F.normalize(t.reshape(1, 3), p=float('inf'))",
     [3.0, -3.0, 1.0], [0.277778, 0.388889, 0.333333]),
    ('sort tie', 't.sort().values * torch.tensor([1.0, 2.0, 3.0])', [2.0, 2.0, 1.0], [2.0, 3.0, 1.0]),
    ('topk tie', 't.topk(2).values * torch.tensor([1.0, 2.0])', [2.0, 2.0, 1.0], [1.0, 2.0, 0.0]),
    ('maximum tie', 'torch.maximum(t, torch.tensor([1.0, 0.0, 5.0]))', [1.0, 1.0, 1.0], [0.5, 1.0, 0.0]),
    ('clamp_min tensor tie', 't.clamp_min(torch.tensor([1.0, 1.0, 5.0]))', [1.0, 2.0, 3.0], [1.0, 1.0, 0.0]),
    ('clamp_max tensor tie', 't.clamp_max(torch.tensor([1.0, 1.0, 5.0]))', [1.0, 2.0, 3.0], [1.0, 0.0, 1.0]),
    ('where past log(0)', 'torch.where(t > 0, t.log(), torch.zeros(3))', [0.0, 1.0, 2.0], [float('nan'), 1.0, 0.5]),
    ('0 / 0', 'torch.tensor([1.0, 0.0, 1.0]) / t', [0.0, 0.0, 2.0], [float('-inf'), float('nan'), -0.25]),
    ('rsqrt at 0', 't.rsqrt()', [0.0, 1.0, 4.0], [float('-inf'), -0.5, -0.0625]),
    ('index with repeats', 't[torch.tensor([0, 0, 2])] * torch.tensor([1.0, 2.0, 3.0])',
     [1.0, 2.0, 3.0], [3.0, 0.0, 3.0]),
    ('gather with repeats', 't.reshape(1, 3).gather(1, torch.tensor([[0, 0, 1]])) * torch.tensor([[1.0, 2.0, 3.0]])',
     [1.0, 2.0, 3.0], [3.0, 3.0, 0.0]),
    ('embedding padding_idx', 'F.embedding(torch.tensor([0, 1, 1]), t.reshape(3, 1), padding_idx=1)',
     [1.0, 2.0, 3.0], [1.0, 0.0, 0.0]),
    ('cross_entropy ignore_index', 'F.cross_entropy(t.reshape(1, 3).expand(2, 3), torch.tensor([0, -100]))',
     [1.0, 2.0, 3.0], [-0.909969, 0.244728, 0.665241]),
    ('bce at 0 and 1', 'F.binary_cross_entropy(t, torch.tensor([1.0, 0.0, 0.0]))',
     [0.0, 1.0, 0.5], [-333333331968.0, 333333331968.0, 0.666667]),
    ('bce with logits, large', 'F.binary_cross_entropy_with_logits(t, torch.tensor([1.0, 0.0, 1.0]), '
                               'pos_weight=torch.tensor([2.0, 2.0, 2.0]))',
     [100.0, -100.0, 0.0], [0.0, 0.0, -0.333333]),
    ('huber at 0', 'F.huber_loss(t, torch.zeros(3))', [1.0, -1.0, 0.0], [0.333333, -0.333333, 0.0]),
    ('smooth_l1 at 0', 'F.smooth_l1_loss(t, torch.zeros(3))', [1.0, -1.0, 0.0], [0.333333, -0.333333, 0.0]),
    ('l1 at 0', 'F.l1_loss(t, torch.zeros(3))', [1.0, -1.0, 0.0], [0.333333, -0.333333, 0.0]),
    ('layer_norm of a constant', 'F.layer_norm(t, (3,))', [2.0, 2.0, 2.0], [0.0, 0.0, 0.0]),
    ('softplus large', 'F.softplus(t)', [100.0, -100.0, 0.0], [1.0, 0.0, 0.5]),
    ('sigmoid large', 'torch.sigmoid(t)', [100.0, -100.0, 0.0], [0.0, 0.0, 0.25]),
    ('tanh large', 'torch.tanh(t)', [100.0, -100.0, 0.0], [0.0, 0.0, 1.0]),
    ('mean of nothing', 't[:0].mean()', [1.0, 2.0, 3.0], [0.0, 0.0, 0.0]),
    ('remainder', 't % torch.tensor([2.0, 2.0, 2.0])', [1.0, 2.0, -3.0], [1.0, 1.0, 1.0]),
    ('median() tie', 't.median()', [1.0, 2.0, 2.0, 3.0], [0.0, 0.5, 0.5, 0.0]),
    ('median() even count', 't.median()', [4.0, 1.0, 3.0, 2.0], [0.0, 0.0, 0.0, 1.0]),
    ('median(0) tie', 't.median(0).values', [2.0, 1.0, 2.0, 2.0], [1.0, 0.0, 0.0, 0.0]),
    ('kthvalue tie', 't.kthvalue(2).values', [1.0, 1.0, 1.0, 0.0], [1.0, 0.0, 0.0, 0.0]),
    ('mode tie', 't.mode().values', [3.0, 1.0, 3.0, 1.0], [0.0, 0.0, 0.0, 1.0]),
    ('cummax tie', 't.cummax(0).values', [1.0, 1.0, 0.5, 2.0], [1.0, 2.0, 0.0, 1.0]),
    ('cummin tie', 't.cummin(0).values', [1.0, 1.0, 0.5, 0.5], [1.0, 1.0, 1.0, 1.0]),
    ('selu at 0', 'F.selu(t)', [0.0, -1.0, 1.0], [1.758099, 0.646769, 1.050701]),
    ('celu at 0', 'F.celu(t, 0.5)', [0.0, -1.0, 1.0], [1.0, 0.135335, 1.0]),
    ('logsigmoid far out', 'F.logsigmoid(t)', [-100.0, 0.0, 100.0], [1.0, 0.5, 0.0]),
]

# (name, expression, second derivative at t = [0.3, 1.0, -2.0]: the gradient of d(expr.sum())/dt summed)
SECOND = [
    ('tanh', 'torch.tanh(t)', [-0.533182, -0.6397, 0.136219]),
    ('sigmoid', 'torch.sigmoid(t)', [-0.036396, -0.090858, 0.079962]),
    ('relu squared', 'torch.relu(t) ** 2', [2.0, 2.0, 0.0]),
    ('softplus', 'F.softplus(t)', [0.244458, 0.196612, 0.104994]),
    ('gelu', 'F.gelu(t)', [0.728451, 0.241971, -0.107982]),
    ('gelu tanh', "F.gelu(t, approximate='tanh')", [0.728148, 0.242148, -0.107875]),
    ('log_softmax', 'F.log_softmax(t, 0) * torch.tensor([1.0, 2.0, 3.0])', [0.0, 0.0, 0.0]),
    ('softmax', 'F.softmax(t, 0) * torch.tensor([1.0, 2.0, 3.0])', [0.0, 0.0, 0.0]),
    ('norm cubed', 'torch.norm(t) ** 3', [6.489066, 5.8375, 8.629926]),
    ('3-norm', 'torch.norm(t, p=3)', [0.15178, 0.610032, 0.327783]),
    ('std squared', 't.std() ** 2', [0.0, 0.0, 0.0]),
    ('var times sum', 't.var() * t.sum()', [1.6, 3.7, -5.3]),
    ('|x| ** 3.5', 't.abs() ** 3.5', [1.437772, 8.75, 24.748737]),
    ('sin', 'torch.sin(t)', [-0.29552, -0.841471, 0.909297]),
    ('cos', 'torch.cos(t)', [-0.955337, -0.540302, 0.416147]),
    ('exp', 'torch.exp(t)', [1.349859, 2.718282, 0.135335]),
    ('log |x|', 'torch.log(t.abs())', [-11.111111, -1.0, -0.25]),
    ('sqrt |x|', 'torch.sqrt(t.abs())', [-1.521451, -0.25, -0.088388]),
    ('1 / (x + 3)', '1.0 / (t + 3)', [0.055653, 0.03125, 2.0]),
    ('mv', '(torch.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]]) @ (t * t)).pow(2)', [55.75, 64.139999, 558.23999]),
    ('outer product', '(t.reshape(3, 1) @ t.reshape(1, 3)).pow(2)', [18.68, 14.760001, 31.559999]),
    ('clamp', 't.clamp(-1.0, 0.5) ** 2', [2.0, 0.0, 0.0]),
    ('clamp tensor', 't.clamp(min=torch.tensor([0.0, 0.0, 0.0])) ** 3', [1.8, 6.0, 0.0]),
    ('maximum', 'torch.maximum(t, t * t)', [0.0, 1.0, 2.0]),
    ('logsumexp', 'torch.logsumexp(t * t, 0)', [0.08506, 0.617516, 3.235637]),
    ('mean squared', '(t * t).mean() ** 2', [2.075556, 1.64, 3.506667]),
    ('amax squared', '(t * t).amax() ** 2', [0.0, 0.0, 48.0]),
    ('cross_entropy', 'F.cross_entropy((t * t).reshape(1, 3), torch.tensor([1]))', [0.08506, -1.382485, 3.23564]),
    ('mse', 'F.mse_loss(t * t, torch.ones(3))', [-0.973333, 2.666667, 14.666668]),
    ('layer_norm', 'F.layer_norm(t * t, (3,)) * torch.tensor([1.0, 2.0, 3.0])', [-0.173847, 0.167114, 0.298042]),
    ('leaky_relu squared', 'F.leaky_relu(t, 0.1) ** 2', [2.0, 2.0, 0.02]),
    ('silu', 'F.silu(t)', [0.477998, 0.302366, 0.050062]),
    ('|x| ** 3', 't.abs() ** 3', [1.8, 6.0, 12.0]),
]


def first_gradient(torch, expr, values):
    t = torch.tensor(values, requires_grad=True)
    eval(expr, {"torch": torch, "F": torch.nn.functional, "t": t}).sum().backward()
    return np.array(t.grad.tolist())


def second_gradient(torch, expr):
    t = torch.tensor([0.3, 1.0, -2.0], requires_grad=True)
    (d1,) = torch.autograd.grad(eval(expr, {"torch": torch, "F": torch.nn.functional, "t": t}).sum(), t,
                                create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), t)
    return np.array(d2.tolist())


def close(got, expected):
    np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-6, equal_nan=True)


@pytest.mark.parametrize("name,expr,values,grad", FIRST, ids=[c[0] for c in FIRST])
def test_gradient_is_pytorchs(name, expr, values, grad):
    import engine.compat.torch as torch
    close(first_gradient(torch, expr, values), grad)


@pytest.mark.parametrize("name,expr,grad", SECOND, ids=[c[0] for c in SECOND])
def test_second_derivative_is_pytorchs(name, expr, grad):
    import engine.compat.torch as torch
    close(second_gradient(torch, expr), grad)


@pytest.mark.torch
def test_the_stored_gradients_are_what_pytorch_computes_now(real_torch):
    torch = real_torch
    for name, expr, values, grad in FIRST:
        close(first_gradient(torch, expr, values), grad)
    for name, expr, grad in SECOND:
        close(second_gradient(torch, expr), grad)
