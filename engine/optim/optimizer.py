"""Optimizer base: param_groups, per-parameter state, zero_grad, state_dict, and PyTorch's repr.
Updates change parameters in place (as PyTorch does), so views such as `w.detach()` see them."""
from __future__ import annotations

from collections import defaultdict

import numpy as np

from engine import autograd
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.nn.module import _zero_grad
from engine.tensor import Tensor


class _Required:
    def __repr__(self) -> str:
        return "<required parameter>"


required = _Required()


def _scalar_hyperparameters(group: dict) -> dict:
    """The group with a one-element tensor hyperparameter (`lr=torch.tensor(0.01)`) read as its number:
    PyTorch steps with the tensor's value; numpy arithmetic with the Tensor itself would corrupt p."""
    if not any(isinstance(v, Tensor) for k, v in group.items() if k != "params"):
        return group
    return {k: (v.item() if isinstance(v, Tensor) and k != "params" else v) for k, v in group.items()}


def _loaded_state_value(param: Tensor, key: str, value):
    """PyTorch's load_state_dict keeps the loaded tensors themselves (the optimizer and the dict then
    share them, as they do in PyTorch), casting a floating state to the parameter's dtype; `step` as is."""
    if not isinstance(value, Tensor) or key == "step" or param.array.dtype.kind != "f" or \
            value.array.dtype == param.array.dtype:
        return value
    return Tensor(value.array.astype(param.array.dtype))


def new_state(p: Tensor, *buffers: str, **scalars: float) -> dict:
    """A parameter's first state as PyTorch keeps it, in its key order (state_dict() shows it): the
    step count and any other scalars as float32 0-d tensors, then zero buffers shaped like p."""
    state = {"step": Tensor(np.array(0.0, dtype=np.float32))}
    state.update((name, Tensor(np.array(value, dtype=np.float32))) for name, value in scalars.items())
    state.update((name, Tensor(np.zeros_like(p.array))) for name in buffers)
    return state


def count_step(state: dict) -> float:
    """Counts the step in the state's float32 tensor (as PyTorch keeps it) and returns it."""
    state["step"].array += 1
    return float(state["step"].array)


def decayed_grad(p: Tensor, grad: np.ndarray, group: dict, decoupled: bool = False) -> np.ndarray:
    """The gradient after maximize and (coupled) weight decay; decoupled decay shrinks p instead."""
    g = -grad if group["maximize"] else grad
    wd = group["weight_decay"]
    if wd != 0:
        if decoupled:
            p.array *= 1 - group["lr"] * wd
        else:
            g = g + wd * p.array
    return g


class Optimizer(metaclass=TorchABCClassRepr):
    def __init__(self, params, defaults: dict):
        self.defaults = defaults
        self.state: dict = defaultdict(dict)      # keyed by the parameter tensor (hashed by identity)
        self.param_groups: list[dict] = []
        if isinstance(params, Tensor):
            raise TypeError("params argument given to the optimizer should be an iterable of Tensors or dicts, "
                            "but got torch.FloatTensor")
        groups = list(params)
        if not groups:
            raise ValueError("optimizer got an empty parameter list")
        if not isinstance(groups[0], dict):
            groups = [{"params": groups}]
        for group in groups:
            self.add_param_group(group)

    def add_param_group(self, group: dict) -> None:
        group = dict(group)
        params = group["params"]
        group["params"] = [params] if isinstance(params, Tensor) else list(params)
        for p in group["params"]:
            if not isinstance(p, Tensor):
                raise TypeError(f"optimizer can only optimize Tensors, but one of the params is {type(p).__name__}")
            if not p.is_leaf:
                raise ValueError("can't optimize a non-leaf Tensor")
        for key, default in self.defaults.items():
            if default is required and key not in group:
                raise ValueError(f"parameter group didn't specify a value of required optimization parameter {key}")
            group.setdefault(key, default)
        existing = {id(p) for g in self.param_groups for p in g["params"]}
        if any(id(p) in existing for p in group["params"]):
            raise ValueError("some parameters appear in more than one parameter group")
        self.param_groups.append(group)

    def zero_grad(self, set_to_none: bool = True) -> None:
        for group in self.param_groups:
            for p in group["params"]:
                _zero_grad(p, set_to_none)

    def step(self, closure=None):
        loss = None
        if closure is not None:
            with autograd.enable_grad():
                loss = closure()
        with autograd.no_grad():
            for group in self.param_groups:
                self._update_group(_scalar_hyperparameters(group))
        return loss

    def _update_group(self, group: dict) -> None:
        """One step for each parameter of `group` that has a gradient."""
        for p in group["params"]:
            if p.grad is not None:
                self._update(p, p.grad.array, group, self.state[p])
                # an in-place change, as PyTorch's: a graph that saved p before this step
                # refuses to backward through the new values
                p._version += 1

    def _update(self, p: Tensor, grad, group: dict, state: dict) -> None:
        raise NotImplementedError

    def state_dict(self) -> dict:
        index: dict = {}
        groups = []
        for group in self.param_groups:
            packed = {k: v for k, v in group.items() if k != "params"}
            packed["params"] = []
            for p in group["params"]:
                index.setdefault(id(p), len(index))
                packed["params"].append(index[id(p)])
            groups.append(packed)
        state = {index[id(p)]: dict(s) for p, s in self.state.items() if id(p) in index and s}
        return {"state": state, "param_groups": groups}

    def load_state_dict(self, state_dict: dict) -> None:
        saved = state_dict["param_groups"]
        if len(saved) != len(self.param_groups):
            raise ValueError("loaded state dict has a different number of parameter groups")
        by_index = {}
        for group, saved_group in zip(self.param_groups, saved):
            if len(group["params"]) != len(saved_group["params"]):
                raise ValueError("loaded state dict contains a parameter group that doesn't match the size "
                                 "of optimizer's group")
            for p, i in zip(group["params"], saved_group["params"]):
                by_index[i] = p
            group.update({k: v for k, v in saved_group.items() if k != "params"})
        self.state = defaultdict(dict)
        for i, s in state_dict["state"].items():
            param = by_index[i]
            self.state[param] = {k: _loaded_state_value(param, k, v) for k, v in s.items()}

    def __repr__(self) -> str:
        text = type(self).__name__ + " ("
        for i, group in enumerate(self.param_groups):
            text += "\n" + f"Parameter Group {i}\n"
            for key in sorted(group):
                if key != "params":
                    text += f"    {key}: {group[key]}\n"
        return text + ")"

    def __getstate__(self):
        return self.__dict__
