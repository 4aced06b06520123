"""RMSprop and Adagrad, exactly PyTorch's single-tensor updates.
RMSprop: v = a*v + (1-a)*g*g;  avg = sqrt(v - mean_g^2 if centered else v) + eps;
p -= lr*buf with buf = momentum*buf + g/avg (momentum > 0), else p -= lr*g/avg.
Adagrad: s += g*g;  p -= lr/(1 + (t-1)*lr_decay) * g/(sqrt(s) + eps)."""
from __future__ import annotations

import numpy as np

from engine.optim.optimizer import Optimizer, count_step, decayed_grad, new_state
from engine.tensor import Tensor


class RMSprop(Optimizer):
    def __init__(self, params, lr: float = 1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False, foreach=None,
                 maximize: bool = False, differentiable: bool = False):
        for name, value in (("learning rate", lr), ("epsilon value", eps), ("momentum value", momentum),
                            ("weight_decay value", weight_decay), ("alpha value", alpha)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        # (in PyTorch's key order: `print(opt.defaults)` shows it)
        super().__init__(params, {"lr": lr, "momentum": momentum, "alpha": alpha, "eps": eps, "centered": centered,
                                  "weight_decay": weight_decay, "capturable": capturable, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            optional = [name for name, used in (("momentum_buffer", group["momentum"] > 0),
                                                ("grad_avg", group["centered"])) if used]
            state.update(new_state(p, "square_avg", *optional))
        count_step(state)
        g = decayed_grad(p, grad, group)
        alpha = group["alpha"]
        v = state["square_avg"].array
        v *= alpha
        v += (1 - alpha) * g * g
        if group["centered"]:
            mean_g = state["grad_avg"].array
            mean_g += (g - mean_g) * (1 - alpha)
            avg = np.sqrt(v - mean_g * mean_g)
        else:
            avg = np.sqrt(v)
        avg += group["eps"]
        if group["momentum"] > 0:
            buf = state["momentum_buffer"].array
            buf *= group["momentum"]
            buf += g / avg
            p.array -= group["lr"] * buf
        else:
            p.array -= group["lr"] * (g / avg)


class Adagrad(Optimizer):
    def __init__(self, params, lr: float = 1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach=None, *, maximize: bool = False,
                 differentiable: bool = False, fused=None):
        for name, value in (("learning rate", lr), ("lr_decay value", lr_decay), ("weight_decay value", weight_decay),
                            ("initial_accumulator_value value", initial_accumulator_value),
                            ("epsilon value", eps)):
            if value < 0.0:
                raise ValueError(f"Invalid {name}: {value}")
        super().__init__(params, {"lr": lr, "lr_decay": lr_decay, "eps": eps, "weight_decay": weight_decay,
                                  "initial_accumulator_value": initial_accumulator_value, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable, "fused": fused})
        # PyTorch creates Adagrad's state eagerly, in the constructor.
        for group in self.param_groups:
            for p in group["params"]:
                self.state[p] = {**new_state(p),
                                 "sum": Tensor(np.full_like(p.array, group["initial_accumulator_value"]))}

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        step = count_step(state)
        g = decayed_grad(p, grad, group)
        clr = group["lr"] / (1 + (step - 1) * group["lr_decay"])
        s = state["sum"].array
        s += g * g
        p.array -= clr * (g / (np.sqrt(s) + group["eps"]))
