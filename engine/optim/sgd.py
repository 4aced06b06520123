"""SGD with momentum, dampening, Nesterov and weight decay, exactly PyTorch's update:
g += wd*p;  buf = g (first step) or momentum*buf + (1-dampening)*g;  g = g + momentum*buf (Nesterov)
or buf;  p -= lr*g."""
from __future__ import annotations

import numpy as np

from engine.optim.optimizer import Optimizer
from engine.tensor import Tensor


class SGD(Optimizer):
    def __init__(self, params, lr: float = 1e-3, momentum: float = 0, dampening: float = 0,
                 weight_decay: float = 0, nesterov: bool = False, *, maximize: bool = False, foreach=None,
                 differentiable: bool = False, fused=None):
        if lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, {"lr": lr, "momentum": momentum, "dampening": dampening,
                                  "weight_decay": weight_decay, "nesterov": nesterov, "maximize": maximize,
                                  "foreach": foreach, "differentiable": differentiable, "fused": fused})

    def _update_group(self, group: dict) -> None:
        """Plain SGD (no momentum, weight decay or maximize) in the loop: the same update
        `p -= lr * grad`, without a per-parameter call and state lookup. Like PyTorch's SGD without
        momentum, it keeps no per-parameter state."""
        if group["momentum"] or group["weight_decay"] or group["maximize"]:
            return super()._update_group(group)
        lr = group["lr"]
        for p in group["params"]:
            grad = p.grad
            if grad is not None:
                p.array -= lr * grad.array
                p._version += 1          # an in-place change, as in Optimizer._update_group

    def _update(self, p: Tensor, grad: np.ndarray, group: dict, state: dict) -> None:
        g = -grad if group["maximize"] else grad
        if group["weight_decay"] != 0:
            g = g + group["weight_decay"] * p.array
        momentum = group["momentum"]
        if momentum != 0:
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = Tensor(np.array(g, copy=True))
                state["momentum_buffer"] = buf
            else:
                buf.array *= momentum
                buf.array += (1 - group["dampening"]) * g
            g = g + momentum * buf.array if group["nesterov"] else buf.array
        p.array -= group["lr"] * g
