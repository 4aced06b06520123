"""Adam and AdamW, exactly PyTorch's update (single-tensor path):
m = b1*m + (1-b1)*g;  v = b2*v + (1-b2)*g*g;  denom = sqrt(v)/sqrt(1-b2^t) + eps;
p -= lr/(1-b1^t) * m/denom.  Adam adds wd*p to g; AdamW first decays p *= 1 - lr*wd."""
from __future__ import annotations

import math

import numpy as np

from engine.optim.optimizer import Optimizer, count_step, decayed_grad, new_state
from engine.tensor import Tensor


def adam_moments(state: dict, g: np.ndarray, beta1: float, beta2: float) -> tuple[np.ndarray, np.ndarray]:
    """Adam's first and second moments, updated in place (NAdam and RAdam keep them too)."""
    m, v = state["exp_avg"].array, state["exp_avg_sq"].array
    m += (g - m) * (1 - beta1)           # torch's lerp_(grad, 1 - beta1)
    v *= beta2
    v += (1 - beta2) * g * g
    return m, v


class Adam(Optimizer):
    decoupled = False

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach=None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False, fused=None, decoupled_weight_decay: bool = False):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if eps < 0.0:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= betas[0] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
        if not 0.0 <= betas[1] < 1.0:
            raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "betas": tuple(betas), "eps": eps, "weight_decay": weight_decay,
                                  "amsgrad": amsgrad, "maximize": maximize, "foreach": foreach,
                                  "capturable": capturable, "differentiable": differentiable, "fused": fused,
                                  "decoupled_weight_decay": decoupled_weight_decay or self.decoupled})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "exp_avg", "exp_avg_sq", *(("max_exp_avg_sq",) if group["amsgrad"] else ())))
        beta1, beta2 = group["betas"]
        lr = group["lr"]
        step = count_step(state)
        g = decayed_grad(p, grad, group, decoupled=group["decoupled_weight_decay"])
        m, v = adam_moments(state, g, beta1, beta2)
        if group["amsgrad"]:
            np.maximum(state["max_exp_avg_sq"].array, v, out=state["max_exp_avg_sq"].array)
            v = state["max_exp_avg_sq"].array
        step_size = lr / (1 - beta1 ** step)
        denom = np.sqrt(v) / math.sqrt(1 - beta2 ** step) + group["eps"]
        p.array -= step_size * (m / denom)


class AdamW(Adam):
    decoupled = True

    def __init__(self, params, lr: float = 1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 1e-2,
                 amsgrad: bool = False, *, maximize: bool = False, foreach=None, capturable: bool = False,
                 differentiable: bool = False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach, maximize=maximize,
                         capturable=capturable, differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
