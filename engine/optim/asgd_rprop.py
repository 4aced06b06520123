"""ASGD and Rprop, exactly PyTorch's single-tensor updates.
ASGD:  p = p*(1 - lambd*eta) - eta*g;  ax += (p - ax)*mu (ax = p while mu is 1);
       eta = lr/(1 + lambd*lr*t)^alpha;  mu = 1/max(1, t - t0)   (eta and mu float32 tensors, as PyTorch's).
Rprop: the step size of each weight grows by etaplus while its gradient keeps its sign and shrinks by
       etaminus when it flips (that step then moves nothing);  p -= sign(g) * step_size."""
from __future__ import annotations

import numpy as np

from engine.optim.optimizer import Optimizer, count_step, decayed_grad, new_state
from engine.tensor import Tensor


class ASGD(Optimizer):
    def __init__(self, params, lr: float = 1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach=None, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        super().__init__(params, {"lr": lr, "lambd": lambd, "alpha": alpha, "t0": t0, "weight_decay": weight_decay,
                                  "foreach": foreach, "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "ax", eta=group["lr"], mu=1.0))
        lr, lambd = group["lr"], group["lambd"]
        step = count_step(state)
        g = decayed_grad(p, grad, group)
        eta = float(state["eta"].array)
        p.array *= 1 - lambd * eta
        p.array -= eta * g
        ax, mu = state["ax"].array, state["mu"].array
        if float(mu) != 1:
            ax += (p.array - ax) * mu
        else:
            ax[...] = p.array
        state["eta"].array[...] = lr / ((1 + lambd * lr * step) ** group["alpha"])
        state["mu"].array[...] = 1 / max(1, step - group["t0"])


class Rprop(Optimizer):
    def __init__(self, params, lr: float = 1e-2, etas=(0.5, 1.2), step_sizes=(1e-6, 50), *,
                 capturable: bool = False, foreach=None, maximize: bool = False, differentiable: bool = False):
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        super().__init__(params, {"lr": lr, "etas": etas, "step_sizes": step_sizes, "foreach": foreach,
                                  "maximize": maximize, "differentiable": differentiable,
                                  "capturable": capturable})

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        if not state:
            state.update(new_state(p, "prev"))
            state["step_size"] = Tensor(np.full_like(grad, group["lr"]))
        etaminus, etaplus = group["etas"]
        step_size_min, step_size_max = group["step_sizes"]
        count_step(state)
        g = -grad if group["maximize"] else grad
        prev, step_size = state["prev"].array, state["step_size"].array
        sign = np.sign(g * prev)
        factor = np.where(sign > 0, etaplus, np.where(sign < 0, etaminus, 1)).astype(step_size.dtype)
        step_size *= factor
        np.clip(step_size, step_size_min, step_size_max, out=step_size)
        g = np.where(factor == step_size.dtype.type(etaminus), 0, g).astype(g.dtype)
        p.array -= np.sign(g) * step_size
        prev[...] = g
