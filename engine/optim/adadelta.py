"""Adadelta, exactly PyTorch's single-tensor update:
v = rho*v + (1-rho)*g*g;  delta = sqrt(u + eps)/sqrt(v + eps) * g;  u = rho*u + (1-rho)*delta^2;  p -= lr*delta."""
from __future__ import annotations

import numpy as np

from engine.optim.optimizer import Optimizer, count_step, decayed_grad, new_state
from engine.tensor import Tensor


class Adadelta(Optimizer):
    def __init__(self, params, lr: float = 1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach=None, *, capturable: bool = False, maximize: bool = False, differentiable: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "rho": rho, "eps": eps, "weight_decay": weight_decay,
                                  "maximize": maximize, "capturable": capturable, "foreach": foreach,
                                  "differentiable": differentiable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "square_avg", "acc_delta"))
        count_step(state)
        g = decayed_grad(p, grad, group)
        rho, eps = group["rho"], group["eps"]
        v, u = state["square_avg"].array, state["acc_delta"].array
        v *= rho
        v += (1 - rho) * g * g
        std = np.sqrt(v + eps)
        delta = np.sqrt(u + eps) / std * g
        u *= rho
        u += (1 - rho) * delta * delta
        p.array -= group["lr"] * delta
