"""The eager Tensor: a numpy array plus the autograd bookkeeping (requires_grad, grad, grad_fn)."""
from __future__ import annotations

import numpy as np

from engine import autograd
from engine.ops.builder import Builder, scalar_dtype
from engine.ops.dtypes import DEFAULT_FLOAT
from engine.ops.registry import OPS

# Observers of every eager op (tracing capture, the recorder). Empty in the common case, so
# the hot path pays one truthiness test.
OP_OBSERVERS: list = []
# Observers told when Python reads a tensor's value (bool(t), t.item(), float(t), int(t)): tracing
# uses this to warn that the trace froze a data-dependent branch. Called as observer(tensor, kind).
VALUE_READ_OBSERVERS: list = []


class Tensor:
    __slots__ = ("data", "requires_grad", "grad", "grad_fn", "_accumulator", "_hooks",
                 "_retains_grad", "_is_scalar", "_module", "_name", "__weakref__")
    __array_priority__ = 1000       # so `np.float32(2) * t` defers to Tensor.__rmul__

    def __init__(self, data, requires_grad: bool = False):
        self.data = data if type(data) is np.ndarray else np.asarray(data)
        self.requires_grad = requires_grad
        self.grad = None
        self.grad_fn = None
        self._accumulator = None
        self._hooks = []
        self._retains_grad = False
        self._is_scalar = False
        self._module = None
        self._name = None

    # ---- properties ----
    @property
    def shape(self):
        from engine.compat.torch_size import Size
        return Size(self.data.shape)

    @property
    def dtype(self):
        from engine.compat import torch_dtypes
        return torch_dtypes.from_numpy(self.data.dtype)

    @property
    def ndim(self) -> int:
        return self.data.ndim

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def T(self) -> "Tensor":
        return self.permute(*reversed(range(self.ndim)))

    def size(self, dim=None):
        return self.shape if dim is None else self.data.shape[dim]

    def dim(self) -> int:
        return self.data.ndim

    def numel(self) -> int:
        return int(self.data.size)

    def item(self):
        if self.data.size != 1:
            raise RuntimeError(f"a Tensor with {self.data.size} elements cannot be converted to Scalar")
        for observer in VALUE_READ_OBSERVERS:
            observer(self, "item")
        return self.data.reshape(()).item()

    def tolist(self):
        return self.data.tolist()

    def numpy(self) -> np.ndarray:
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self.data

    def __len__(self) -> int:
        if self.data.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.data.shape[0]

    def __bool__(self) -> bool:
        if self.data.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        for observer in VALUE_READ_OBSERVERS:
            observer(self, "bool")
        return bool(self.data.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.data.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self) -> str:
        from engine.format import tensor_repr
        return tensor_repr(self)

    __str__ = __repr__

    # ---- autograd ----
    def backward(self, gradient=None, retain_graph=None, create_graph: bool = False, inputs=None) -> None:
        if not self.requires_grad:
            raise RuntimeError("element 0 of tensors does not require grad and does not have a grad_fn")
        if gradient is None:
            if self.data.size != 1:
                raise RuntimeError("grad can be implicitly created only for scalar outputs")
            gradient = np.ones_like(self.data)
        elif isinstance(gradient, Tensor):
            gradient = gradient if create_graph else gradient.data
        else:
            gradient = np.asarray(gradient, dtype=self.data.dtype)
        retain = create_graph if retain_graph is None else retain_graph
        from engine import record
        with record.backward_call(self, retain):
            autograd.run_backward([self], [gradient], retain_graph=retain, create_graph=create_graph)

    def detach(self) -> "Tensor":
        return Tensor(self.data)

    def detach_(self) -> "Tensor":
        self.grad_fn = None
        self.requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if not self.is_leaf and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                               "a computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and self.data.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self.requires_grad = requires_grad
        return self

    def retain_grad(self) -> None:
        if not self.requires_grad:
            raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
        if not self.is_leaf:
            self._retains_grad = True

    @property
    def retains_grad(self) -> bool:
        return self._retains_grad

    def register_hook(self, hook):
        if not self.requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        self._hooks.append(hook)

        class _Handle:
            def remove(handle_self):
                if hook in self._hooks:
                    self._hooks.remove(hook)
        return _Handle()

    # ---- arithmetic (the rest of the surface lives in engine.tensor_methods) ----
    def __add__(self, other): return apply("add", self, other)
    def __radd__(self, other): return apply("add", other, self)
    def __sub__(self, other): return apply("sub", self, other)
    def __rsub__(self, other): return apply("sub", other, self)
    def __mul__(self, other): return apply("mul", self, other)
    def __rmul__(self, other): return apply("mul", other, self)
    def __truediv__(self, other): return apply("div", self, other)
    def __rtruediv__(self, other): return apply("div", other, self)
    def __matmul__(self, other): return apply("matmul", self, other)
    def __rmatmul__(self, other): return apply("matmul", other, self)
    def __neg__(self): return apply("neg", self)
    def __gt__(self, other): return apply("gt", self, other)
    def __lt__(self, other): return apply("lt", self, other)
    def __ge__(self, other): return apply("ge", self, other)
    def __le__(self, other): return apply("le", self, other)
    def __eq__(self, other): return apply("eq", self, other)
    def __ne__(self, other): return apply("ne", self, other)

    def sum(self, dim=None, keepdim: bool = False, dtype=None):
        return apply("sum", self, dim=_dims(dim), keepdim=keepdim)

    def mean(self, dim=None, keepdim: bool = False):
        return apply("mean", self, dim=_dims(dim), keepdim=keepdim)

    def exp(self): return apply("exp", self)
    def log(self): return apply("log", self)
    def tanh(self): return apply("tanh", self)
    def relu(self): return apply("relu", self)

    def reshape(self, *shape):
        return apply("reshape", self, shape=_shape_arg(shape))

    view = reshape

    def expand(self, *shape):
        return apply("expand", self, shape=_shape_arg(shape))

    def permute(self, *dims):
        return apply("permute", self, dims=tuple(d % max(self.ndim, 1) for d in _shape_arg(dims)))

    def transpose(self, dim0: int, dim1: int):
        return apply("transpose", self, dim0=dim0, dim1=dim1)

    def t(self):
        return self if self.ndim < 2 else self.transpose(0, 1)


def _dims(dim):
    return tuple(dim) if isinstance(dim, (list, tuple)) else dim


def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


# ---- applying an op ---------------------------------------------------------------------------

def as_tensor_like(x, inputs: tuple) -> Tensor:
    """Wrap a Python scalar (or array-like) as a constant tensor; scalars are weakly typed."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float)):
        t = Tensor(np.asarray(x, dtype=scalar_dtype(tuple(i.data for i in inputs if isinstance(i, Tensor)), x)))
        t._is_scalar = True
        return t
    arr = np.asarray(x)
    if arr.dtype == np.float64:
        arr = arr.astype(DEFAULT_FLOAT)
    return Tensor(arr)


def apply(name: str, *inputs, **attrs) -> Tensor:
    """Run registered op `name` eagerly; record its grad_fn when a gradient will be needed."""
    op = OPS[name]
    tensors = tuple(x if isinstance(x, Tensor) else as_tensor_like(x, inputs) for x in inputs)
    out = Tensor(op.run(*(t.data for t in tensors), **attrs))
    if op.differentiable and autograd._GradMode.enabled:
        for t in tensors:
            if t.requires_grad:
                out.requires_grad = True
                out.grad_fn = autograd.Node(op, tensors, attrs, out)
                break
    if OP_OBSERVERS:
        for observer in OP_OBSERVERS:
            observer(op, tensors, attrs, out)
    return out


class TensorBuilder(Builder):
    """Runs vjp rules on Tensors, so that backward itself is recorded (create_graph=True)."""

    def apply(self, name, inputs, attrs):
        return apply(name, *(Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs), **attrs)
