"""Tensor's methods that are engine.functional's functions, bound onto the class from a table.

engine.tensor defines Tensor below engine.functional (whose functions take and make Tensors), so the
methods that index, reduce or reshape through functional are set here, once both exist: x.sum(1) is
F.sum(x, 1). `import engine` imports this module (engine/__init__.py), so every Tensor has them
before any program runs. A method whose arguments are the function's (after `input`) is the function
itself; the few that differ (PyTorch's method takes dtype positionally, or names an argument
otherwise) are written out below.
"""
from __future__ import annotations

from engine import autograd
from engine import functional as F
from engine.tensor import Tensor, apply, numpy_keywords
from engine.tensor_inplace import _VIEW_OF_LEAF_INPLACE, _selects_a_view

# x.name(*args) is F.name(x, *args), argument for argument.
SAME_AS_FUNCTIONAL = (
    "add", "sub", "div", "clamp_min", "clamp_max", "masked_fill",
    "var", "std", "prod", "cumsum", "max", "min", "amax", "amin", "argmax", "argmin", "logsumexp", "norm",
    "squeeze", "unsqueeze", "flatten", "unbind", "narrow", "chunk",
    "scatter", "scatter_", "scatter_add", "scatter_add_", "index_put", "index_put_", "index_select",
    "sort", "argsort", "topk", "tril", "triu",
)


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


def _clamp_inplace(self, min, max, fn=None) -> Tensor:
    name, bounds, attrs = F.clamp_op(min, max, fn)       # the op clamp runs (tensor bounds: clamp_tensor)
    return self._inplace(name, *bounds, **attrs)


def clamp_(self, min=None, max=None): return _clamp_inplace(self, min, max)
def clamp_min_(self, min): return _clamp_inplace(self, min, None, "clamp_min")
def clamp_max_(self, max): return _clamp_inplace(self, None, max, "clamp_max")


WRITTEN_OUT = {"__getitem__": __getitem__, "__setitem__": __setitem__, "clamp": clamp, "clip": clamp,
               "where": where, "mm": mm, "bmm": bmm, "sum": sum, "mean": mean, "softmax": softmax,
               "log_softmax": log_softmax, "gather": gather, "split": split, "clamp_": clamp_,
               "clamp_min_": clamp_min_, "clamp_max_": clamp_max_}

for _name in SAME_AS_FUNCTIONAL:
    setattr(Tensor, _name, getattr(F, _name))
for _name, _method in WRITTEN_OUT.items():
    if _method.__name__ == _name:
        _method.__qualname__ = f"Tensor.{_name}"
    setattr(Tensor, _name, _method)
