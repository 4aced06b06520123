"""Adamax, NAdam and RAdam, exactly PyTorch's single-tensor updates (Adam's moments, other steps):
Adamax: u = max(b2*u, |g| + eps);  p -= lr/(1-b1^t) * m/u.
NAdam:  mu_t = b1*(1 - 0.5*0.96^(t*psi));  p -= lr*(1-mu_t)/(1-prod mu) * g/denom
        + lr*mu_{t+1}/(1-prod mu * mu_{t+1}) * m/denom,  denom = sqrt(v/(1-b2^t)) + eps.
RAdam:  rho_t = rho_inf - 2t*b2^t/(1-b2^t);  rectified Adam step when rho_t > 5, else p -= lr*m/(1-b1^t)."""
from __future__ import annotations

import math

import numpy as np

from engine.optim.adam import adam_moments
from engine.optim.optimizer import Optimizer, count_step, decayed_grad, new_state
from engine.tensor import Tensor


def _check(lr, eps, betas, weight_decay) -> None:
    if not 0.0 <= lr:
        raise ValueError(f"Invalid learning rate: {lr}")
    if not 0.0 <= eps:
        raise ValueError(f"Invalid epsilon value: {eps}")
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
    if not 0.0 <= weight_decay:
        raise ValueError(f"Invalid weight_decay value: {weight_decay}")


class Adamax(Optimizer):
    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach=None, *, maximize: bool = False, differentiable: bool = False, capturable: bool = False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "exp_avg", "exp_inf"))
        beta1, beta2 = group["betas"]
        step = count_step(state)
        g = decayed_grad(p, grad, group, decoupled=group.get("decoupled_weight_decay", False))
        m, u = state["exp_avg"].array, state["exp_inf"].array
        m += (g - m) * (1 - beta1)
        u *= beta2
        np.maximum(u, np.abs(g) + group["eps"], out=u)
        clr = group["lr"] / (1 - beta1 ** step)
        p.array -= clr * (m / u)


class NAdam(Optimizer):
    def __init__(self, params, lr: float = 2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *, foreach=None,
                 maximize: bool = False, capturable: bool = False, differentiable: bool = False):
        _check(lr, eps, betas, weight_decay)
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "momentum_decay": momentum_decay, "decoupled_weight_decay": decoupled_weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "differentiable": differentiable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "exp_avg", "exp_avg_sq", mu_product=1.0))
        beta1, beta2 = group["betas"]
        lr, psi = group["lr"], group["momentum_decay"]
        step = count_step(state)
        bias_correction2 = 1 - beta2 ** step
        g = decayed_grad(p, grad, group, decoupled=group.get("decoupled_weight_decay", False))
        mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * psi)))
        mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * psi)))
        state["mu_product"].array *= mu                  # a float32 tensor, as PyTorch's
        mu_product = float(state["mu_product"].array)
        m, v = adam_moments(state, g, beta1, beta2)
        denom = np.sqrt(v / bias_correction2) + group["eps"]
        p.array += (-lr * (1.0 - mu) / (1.0 - mu_product)) * (g / denom)
        p.array += ((-lr * mu_next) / (1.0 - mu_product * mu_next)) * (m / denom)


class RAdam(Optimizer):
    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach=None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False):
        _check(lr, eps, betas, weight_decay)
        super().__init__(params, {"lr": lr, "betas": betas, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "foreach": foreach, "capturable": capturable,
                                  "decoupled_weight_decay": decoupled_weight_decay, "differentiable": differentiable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "exp_avg", "exp_avg_sq"))
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        step = count_step(state)
        g = decayed_grad(p, grad, group, decoupled=group.get("decoupled_weight_decay", False))
        m, v = adam_moments(state, g, beta1, beta2)
        bias_correction1 = 1 - beta1 ** step
        bias_correction2 = 1 - beta2 ** step
        corrected = m / bias_correction1
        rho_inf = 2 / (1 - beta2) - 1
        rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
        if rho_t > 5.0:
            rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
            adaptive_lr = math.sqrt(bias_correction2) / (np.sqrt(v) + group["eps"])
            p.array -= corrected * lr * adaptive_lr * rect
        else:
            p.array -= corrected * lr
