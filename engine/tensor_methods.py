"""Tensor's methods that need the layers above engine.tensor, bound onto the class here from tables.

engine.tensor defines Tensor with what needs nothing above it (its fields, value reads, the methods
that are one op). Whatever makes Tensors with more than `apply` sits above it and so cannot be
defined in its class body: backward() (the walk, engine.backward), the in-place ops and views'
upkeep (engine.tensor_inplace), new_tensor (engine.creation) and the methods that are
engine.functional's functions (x.sum(1) is F.sum(x, 1)). They are set here, once all exist;
`import engine` imports this module (engine/__init__.py), so every Tensor has them before any
program runs. A method whose arguments are the function's (after `input`) is the function itself;
the few that differ (PyTorch's method takes dtype positionally, or names an argument otherwise) are
written out below.
"""
from __future__ import annotations

import numpy as np

from engine import autograd, backward as _backward, creation
from engine import functional as F
from engine.compat.torch_size import Size
from engine.hooks import BACKWARD_CALL, around_backward
from engine.tensor import Tensor, apply, numpy_keywords
from engine.tensor_inplace import _VIEW_OF_LEAF_INPLACE, InPlaceOps, _selects_a_view

# x.name(*args) is F.name(x, *args), argument for argument.
SAME_AS_FUNCTIONAL = (
    "add", "sub", "div", "clamp_min", "clamp_max", "masked_fill", "nan_to_num",
    "var", "std", "prod", "cumsum", "max", "min", "amax", "amin", "argmax", "argmin", "logsumexp", "norm",
    "squeeze", "unsqueeze", "flatten", "unbind", "narrow", "chunk",
    "scatter", "scatter_", "scatter_add", "scatter_add_", "index_put", "index_put_", "index_select",
    "sort", "argsort", "topk", "tril", "triu", "cummax", "cummin", "kthvalue", "median", "mode",
    "cumprod", "fliplr", "flipud", "roll", "repeat_interleave", "dot", "mv", "outer", "ger",
)


def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
    if not self.requires_grad:
        raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
    if gradient is None:
        if self.array.size != 1:
            raise RuntimeError("grad can be implicitly created only for scalar outputs")
        gradient = np.ones(self.array.shape, self.array.dtype)    # = ones_like, minus its wrapper
    elif isinstance(gradient, Tensor):
        gradient = gradient if create_graph else gradient.array
    else:
        gradient = np.asarray(gradient, dtype=self.array.dtype)
    if gradient.shape != self.array.shape:
        raise RuntimeError(f"Mismatch in shape: grad_output[0] has a shape of {Size(gradient.shape)} and "
                           f"output[0] has a shape of {Size(self.array.shape)}.")
    retain = create_graph if retain_graph is None else retain_graph
    if inputs is not None:               # only these tensors' .grad receive a gradient
        inputs = [inputs] if isinstance(inputs, Tensor) else list(inputs)
        if not inputs:
            raise RuntimeError("`inputs` argument to `backward()` cannot be empty.")
    if not BACKWARD_CALL:                # nobody (no recorder) wraps this walk: no context to enter
        _backward.backward(self, gradient, retain, create_graph, inputs)
        return
    with around_backward(self, retain):
        _backward.backward(self, gradient, retain, create_graph, inputs)


def new_tensor(self, data, dtype=None, requires_grad=False):
    return creation.tensor(data, dtype=dtype or self.dtype, requires_grad=requires_grad)


def __getitem__(self, key):
    if type(key) is int:          # the common x[i]: one select op
        size = self.array.shape[0] if self.array.ndim else 0
        if not -size <= key < size:
            if not self.array.ndim:
                raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                                 "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size {size}")
        return apply("select", self, dim=0, index=key % size)
    if type(key) is range:             # PyTorch takes a range as the list of its ints
        key = list(key)
    elif type(key) is tuple and any([type(k) is range for k in key]):
        key = tuple([list(k) if type(k) is range else k for k in key])
    return F.getitem(self, key)


def __setitem__(self, key, value):
    if self.requires_grad and self.grad_fn is None and autograd._GradMode.enabled and _selects_a_view(key):
        # PyTorch writes through a view of the leaf (p[0] = 1.0): its error names the view
        raise RuntimeError(_VIEW_OF_LEAF_INPLACE)
    F.setitem(self, key, value)


def clamp(self, min=None, max=None): return F.clamp(self, min, max)
def where(self, condition, other): return F.where(condition, self, other)
def mm(self, other): return F.mm(self, other)
def bmm(self, other): return F.bmm(self, other)
@numpy_keywords
def sum(self, dim=None, keepdim: bool = False, dtype=None): return F.sum(self, dim, keepdim, dtype=dtype)
@numpy_keywords
def mean(self, dim=None, keepdim: bool = False, dtype=None): return F.mean(self, dim, keepdim, dtype=dtype)
def softmax(self, dim, dtype=None): return F.softmax(self, dim, dtype=dtype)
def log_softmax(self, dim, dtype=None): return F.log_softmax(self, dim, dtype=dtype)
def gather(self, dim: int, index): return F.gather(self, dim, index)
def split(self, split_size, dim: int = 0): return F.split(self, split_size, dim)


def flip(self, *dims):
    """x.flip(0, 1) or x.flip([0, 1]) (the method takes dims as varargs too)."""
    return F.flip(self, dims[0] if len(dims) == 1 and isinstance(dims[0], (list, tuple)) else dims)


def _clamp_inplace(self, min, max, fn=None) -> Tensor:
    name, bounds, attrs = F.clamp_op(min, max, fn)       # the op clamp runs (tensor bounds: clamp_tensor)
    return self._inplace(name, *bounds, **attrs)


def clamp_(self, min=None, max=None): return _clamp_inplace(self, min, max)
def clamp_min_(self, min): return _clamp_inplace(self, min, None, "clamp_min")
def clamp_max_(self, max): return _clamp_inplace(self, None, max, "clamp_max")


WRITTEN_OUT = {"backward": backward, "new_tensor": new_tensor, "__getitem__": __getitem__,
               "__setitem__": __setitem__, "clamp": clamp, "clip": clamp, "where": where, "mm": mm, "bmm": bmm, "sum": sum, "mean": mean, "softmax": softmax,
               "log_softmax": log_softmax, "gather": gather, "split": split, "flip": flip, "clamp_": clamp_,
               "clamp_min_": clamp_min_, "clamp_max_": clamp_max_}

# The in-place ops and views' upkeep: every method of InPlaceOps.
IN_PLACE = {name: member for name, member in vars(InPlaceOps).items() if not name.startswith("__")}

for _name, _method in IN_PLACE.items():
    setattr(Tensor, _name, _method)
for _name in SAME_AS_FUNCTIONAL:
    setattr(Tensor, _name, getattr(F, _name))
for _name, _method in WRITTEN_OUT.items():
    if _method.__name__ == _name:
        _method.__qualname__ = f"Tensor.{_name}"
    setattr(Tensor, _name, _method)
