"""The eager Tensor: a numpy array plus the autograd bookkeeping (requires_grad, grad, grad_fn)."""
from __future__ import annotations

import functools
import warnings
import weakref

import numpy as np

from engine import autograd, native, nn_context
from engine.compat import torch_dtypes
from engine.errors import UnsupportedError
from engine.format import tensor_repr
from engine.hooks import NODE_MADE, OP_APPLIED, VALUE_READ
from engine.ops.builder import Builder, scalar_dtype
from engine.ops.dtypes import DEFAULT_FLOAT, SCALAR_TYPE_NAMES, cpp_type_name, scalar_type_name
from engine.ops import kernels, special
from engine.ops.registry import ELEMENTWISE, OPS
from engine.compat.torch_class_names import TorchClassRepr
from engine.compat.torch_device import device as _device
from engine.compat.torch_size import Size as _Size


def numpy_keywords(fn):
    """PyTorch takes numpy's `axis=` and `keepdims=` as aliases of `dim=` and `keepdim=` (x.sum(axis=0))."""
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if "axis" in kwargs:
            kwargs["dim"] = kwargs.pop("axis")
        if "keepdims" in kwargs:
            kwargs["keepdim"] = kwargs.pop("keepdims")
        return fn(*args, **kwargs)
    return wrapper


class Tensor(metaclass=TorchClassRepr):      # (the metaclass: type(x) prints as <class 'torch.Tensor'>)
    # Every op creates a Tensor, so construction stores only the fields every op reads (slots);
    # the others live in the instance __dict__ once set, with these class-level defaults before.
    # _requires_grad is `requires_grad` (below) without the checks of a user's assignment: the
    # engine writes it directly. _version: bumped by every in-place op, as PyTorch's version counter.
    __slots__ = ("array", "_requires_grad", "grad_fn", "_version", "__dict__", "__weakref__")
    __array_priority__ = 1000       # so `np.float32(2) * t` defers to Tensor.__rmul__
    _grad = None                    # the accumulated gradient (a leaf's, or a retain_grad() tensor's)
    _hooks = ()                     # register_hook callbacks (a list once one is registered)
    _retains_grad = False
    _accumulator = None             # weakref to the leaf's AccumulateGrad node
    _is_scalar = False              # a constant made from a Python scalar (weakly typed)
    _module = None                  # owning module path and parameter name, set by nn.Module
    _name = None

    def __init__(self, data, requires_grad: bool = False):
        self.array = data if type(data) is np.ndarray else np.asarray(data)
        self._requires_grad = requires_grad
        self.grad_fn = None
        self._version = 0

    # ---- properties ----
    # requires_grad: the _requires_grad slot, read plainly and assigned through PyTorch's checks
    # (`_checked_requires_grad`). This property is the fallback: with engine/native loaded, the same
    # descriptor in C replaces it after the class (`_native.checked_slot`), so reads cost a slot's.
    requires_grad = property(lambda self: self._requires_grad,
                             lambda self, value: setattr(self, "_requires_grad", _checked_requires_grad(self, value)),
                             lambda self: _checked_requires_grad(self, None),
                             doc="Whether autograd records ops on this tensor (a leaf's flag to set).")

    @property
    def grad(self):
        """The accumulated gradient: a leaf's, or a retain_grad() tensor's (None before backward)."""
        return self._grad

    @grad.setter
    def grad(self, value) -> None:
        self._grad = _checked_grad(self, value)

    @grad.deleter
    def grad(self) -> None:
        self._grad = None

    @property
    def data(self) -> "Tensor":
        """PyTorch's `.data`: the same storage as a tensor outside every graph, so
        `p.data.zero_()` or `p.data -= lr * p.grad` change `p` itself without being recorded —
        and, as in PyTorch, without autograd's version check noticing. (The numpy array is `.array`.)"""
        return Tensor(self.array)

    @data.setter
    def data(self, value) -> None:
        self.array = value.array if isinstance(value, Tensor) else np.asarray(value, dtype=self.array.dtype)

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype, copy=False)

    @property
    def shape(self):
        return _Size(self.array.shape)

    @property
    def dtype(self):
        return torch_dtypes.from_numpy(self.array.dtype)

    @property
    def ndim(self) -> int:
        return self.array.ndim

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    @property
    def T(self) -> "Tensor":
        if self.ndim != 2:
            warnings.warn("The use of `x.T` on tensors of dimension other than 2 to reverse their shape is "
                          "deprecated and it will throw an error in a future release. Consider `x.mT` to "
                          "transpose batches of matrices or `x.permute(*torch.arange(x.ndim - 1, -1, -1))` to "
                          "reverse the dimensions of a tensor.", UserWarning, stacklevel=2)
        return self.permute(*reversed(range(self.ndim)))    # PermuteBackward0, as PyTorch 2.13's

    def size(self, dim=None):
        return self.shape if dim is None else self.array.shape[dim]

    def dim(self) -> int:
        return self.array.ndim

    def numel(self) -> int:
        return int(self.array.size)

    def item(self):
        if self.array.size != 1:
            raise RuntimeError(f"a Tensor with {self.array.size} elements cannot be converted to Scalar")
        for observer in VALUE_READ:
            observer(self, "item")
        return self.array.reshape(()).item()

    def tolist(self):
        for observer in VALUE_READ:
            observer(self, "tolist")
        return self.array.tolist()

    def numpy(self) -> np.ndarray:
        for observer in VALUE_READ:       # first: a capture explains its own refusal
            observer(self, "numpy")
        if self.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() instead.")
        return self.array

    def __len__(self) -> int:
        if self.array.ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self.array.shape[0]

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
        for observer in VALUE_READ:
            observer(self, "bool")
        return bool(self.array.reshape(()))

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self.array.dtype.kind not in "iub":
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __hash__(self):
        return id(self)

    def __repr__(self) -> str:
        return tensor_repr(self)

    __str__ = __repr__

    def __format__(self, spec: str) -> str:
        """As PyTorch's: a 0-d tensor formats its value (f"{loss:.4f}"); others as str() (an empty
        spec) or not at all."""
        if self.array.ndim == 0 and type(self) is Tensor:
            return self.item().__format__(spec)
        return object.__format__(self, spec)

    # ---- autograd (backward() is bound by engine.tensor_methods: the walk makes Tensors) ----
    def detach(self) -> "Tensor":
        detached = Tensor(self.array)
        if self.grad_fn is not None:           # shares the values, as PyTorch's: see _keep_view
            self._keep_view(detached, None, _NO_ATTRS)
        return detached

    def detach_(self) -> "Tensor":
        self.grad_fn = None
        self._requires_grad = False
        return self

    def requires_grad_(self, requires_grad: bool = True) -> "Tensor":
        if not self.is_leaf and not requires_grad:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you want to use "
                               "a computed variable in a subgraph that doesn't require differentiation use "
                               "var_no_grad = var.detach().")
        if requires_grad and self.array.dtype.kind != "f":
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        self._requires_grad = requires_grad
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
        if not self._hooks:
            self._hooks = []
        self._hooks.append(hook)

        class _Handle:
            def remove(handle_self):
                if hook in self._hooks:
                    self._hooks.remove(hook)
        return _Handle()

    # In PyTorch a view shares its base's memory, so it sees every later change of the base. Here an
    # in-place op recorded in a graph gives the changed tensor a new array (the old one may be saved
    # for backward), so each tensor in a graph keeps the views taken of it (`_views`: weak
    # references, with the view op and its attributes) and takes them again when it changes:
    # their values are then the new ones and their gradients flow through the change
    # (AsStridedBackward0, as PyTorch regenerates them). A taken-again view counts as changed in
    # place (its version moves), so backward refuses a node that had saved its old value.
    _views = ()

    def _keep_view(self, view: "Tensor", op_name: str | None, attrs: dict) -> None:
        views = self._views
        if not views:
            views = self._views = _Views()
        elif len(views) >= views.sweep_at:     # views taken in a loop: forget the ones gone since
            views[:] = [entry for entry in views if entry[0]() is not None]
            # next sweep when the list has doubled: a weight's t() in a recurrent loop keeps every
            # view alive until backward, and sweeping all of them at each step was quadratic
            views.sweep_at = max(64, 2 * len(views))
        views.append((weakref.ref(view), op_name, attrs))

    # ---- operators ------------------------------------------------------------------------------
    # x + y, x - y, x * y, x / y, x @ y and the comparisons are set after the class (_binary_operator);
    # the other operators that are one op are made from _OP_METHODS there too.
    def __rsub__(self, other):
        out = apply("sub", other, self)
        if out.grad_fn is not None:          # `2 - x`: PyTorch's rsub with a scalar
            out.grad_fn.rename("RsubBackward1")
        return out

    def __rtruediv__(self, other):
        if type(other) is float or type(other) is int or type(other) is bool:
            # PyTorch's `2 / x` is `x.reciprocal() * 2`: MulBackward0 over ReciprocalBackward0, and the
            # float32 rounding of 1 / x then of the product (not one rounding of 2 / x)
            return apply("mul", apply("reciprocal", self), other)
        return apply("div", other, self)

    def __pos__(self): return self

    def __pow__(self, exponent):
        if isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
            return apply("pow_scalar", self, exponent=exponent)
        return apply("pow", self, exponent)

    def __rpow__(self, base):
        return apply("pow", base, self)

    def __iadd__(self, other): return self.add_(other)
    def __isub__(self, other): return self.sub_(other)
    def __imul__(self, other): return self.mul_(other)
    def __itruediv__(self, other): return self.div_(other)

    def __iter__(self):
        if self.array.ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self.array.shape[0]))

    def __array__(self, dtype=None, copy=None):
        return self.array if dtype is None else self.array.astype(dtype)

    @numpy_keywords
    # ---- math methods: one op each are made from _OP_METHODS after the class; those that are
    # engine.functional's functions are bound by engine.tensor_methods ----
    def pow(self, exponent): return self.__pow__(exponent)
    def square(self): return apply("pow_scalar", self, exponent=2)
    def rsqrt(self): return apply("pow_scalar", self, exponent=-0.5)
    def logical_not(self): return apply("eq", self, 0) if self.array.dtype != np.bool_ else apply("bitwise_not", self)

    @numpy_keywords
    def all(self, dim=None, keepdim: bool = False):
        return Tensor(np.asarray(np.all(self.array, axis=dim, keepdims=keepdim)))

    @numpy_keywords
    def any(self, dim=None, keepdim: bool = False):
        return Tensor(np.asarray(np.any(self.array, axis=dim, keepdims=keepdim)))

    def nonzero(self, *, as_tuple: bool = False):
        """The indices of the nonzero elements: an (n, ndim) int64 tensor, or with as_tuple one int64
        tensor per dimension (a 0-d tensor counts as one element, as in PyTorch)."""
        if as_tuple:
            values = self.array.reshape(1) if self.array.ndim == 0 else self.array
            return tuple(Tensor(ix.astype(np.int64)) for ix in np.nonzero(values))
        return Tensor(np.argwhere(self.array).astype(np.int64))

    def equal(self, other) -> bool:
        return self.array.shape == other.array.shape and bool(np.all(self.array == other.array))

    # ---- shapes ----
    def reshape(self, *shape):
        return apply("reshape", self, shape=_shape_arg(shape), fn="reshape")

    def view(self, *shape):
        if len(shape) == 1 and not isinstance(shape[0], (int, tuple, list)):   # view(dtype)
            raise _unsupported("Tensor.view(dtype)")
        out = apply("reshape", self, shape=_shape_arg(shape), fn="view")
        if self.array.size and not np.may_share_memory(out.array, self.array):
            # numpy had to copy: the strides cannot express the new shape, and PyTorch refuses
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at least one "
                               "dimension spans across two contiguous subspaces). Use .reshape(...) instead.")
        return out

    def view_as(self, other): return self.view(*other.array.shape)
    def reshape_as(self, other): return self.reshape(other.array.shape)

    def expand(self, *shape):
        return apply("expand", self, shape=_shape_arg(shape))

    def expand_as(self, other): return self.expand(other.array.shape)
    def broadcast_to(self, shape): return self.expand(shape)

    def permute(self, *dims):
        dims = _shape_arg(dims)
        if len(dims) != self.ndim:
            raise RuntimeError("permute(sparse_coo): number of dimensions in the tensor input does not match the "
                               "length of the desired ordering of dimensions i.e. input.dim() = "
                               f"{self.ndim} is not equal to len(dims) = {len(dims)}")
        dims = tuple([_dim(d, self.ndim) for d in dims])
        if len(set(dims)) != len(dims):
            raise RuntimeError("permute(): duplicate dims are not allowed.")
        return apply("permute", self, dims=dims)

    def transpose(self, dim0: int, dim1: int): return self._transpose(dim0, dim1, "transpose")
    def swapaxes(self, dim0: int, dim1: int): return self._transpose(dim0, dim1, "transpose")

    def t(self):
        if self.ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self.ndim}D")
        if self.ndim == 0:
            return self
        return self._transpose(0, self.ndim - 1, "t")     # a 1-D tensor too: TBackward0, as PyTorch

    def _transpose(self, dim0: int, dim1: int, fn: str) -> "Tensor":
        # `fn` only names the grad_fn as PyTorch does: TBackward0 for t(), else TransposeBackward0
        return apply("transpose", self, dim0=_dim(dim0, self.ndim), dim1=_dim(dim1, self.ndim), fn=fn)

    @property
    def mT(self): return self.transpose(-2, -1)

    def repeat(self, *sizes):
        """Tile: x.repeat(2, 3). Made of unsqueeze/expand/reshape, so its backward sums the copies."""
        sizes = _shape_arg(sizes)
        if len(sizes) < self.ndim:
            raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions "
                               "of tensor")
        shape = (1,) * (len(sizes) - self.ndim) + self.array.shape
        x = self.reshape(*(d for s in shape for d in (1, s)))
        x = x.expand(*(d for r, s in zip(sizes, shape) for d in (r, s)))
        out = x.reshape(*(r * s for r, s in zip(sizes, shape)))
        if out.grad_fn is not None:            # PyTorch's one node for it (here the last of three)
            out.grad_fn.rename("RepeatBackward0")
        return out

    def contiguous(self, memory_format=None):
        """Itself when row-major already, else a row-major copy (CloneBackward0), as PyTorch's."""
        return self if self.array.flags.c_contiguous else apply("clone", self)

    def is_contiguous(self, memory_format=None) -> bool:
        # numpy's flag, like PyTorch's test, ignores the strides of size-1 dimensions
        return bool(self.array.flags.c_contiguous)

    def stride(self, dim=None):
        """Elements to step in memory per index of each dim: numpy's byte strides of the same view
        (a transpose, slice or expand is a numpy view as it is a PyTorch one), divided by the item size."""
        if self.array.size == 0:        # numpy may give an empty array any strides; PyTorch's are row-major
            strides = tuple(int(np.prod([max(n, 1) for n in self.array.shape[i + 1:]])) for i in range(self.ndim))
        else:
            strides = tuple(s // self.array.itemsize for s in self.array.strides)
        if dim is None:
            return strides
        if not -max(self.ndim, 1) <= dim < max(self.ndim, 1):
            raise IndexError(f"Dimension out of range (expected to be in range of [{-max(self.ndim, 1)}, "
                             f"{max(self.ndim, 1) - 1}], but got {dim})")
        return strides[dim] if self.ndim else 1

    def storage_offset(self) -> int:
        """Where this view starts in the memory it shares, in elements (0 for a tensor with its own)."""
        base = self.array
        while isinstance(base.base, np.ndarray):
            base = base.base
        low = min((0, *(s * (n - 1) for s, n in zip(self.array.strides, self.array.shape) if s < 0 and n)))
        return (self.array.__array_interface__["data"][0] + low - base.__array_interface__["data"][0] - min(
            (0, *(s * (n - 1) for s, n in zip(base.strides, base.shape) if s < 0 and n)))) // self.array.itemsize
    def clone(self, memory_format=None): return apply("clone", self)

    # ---- dtype and device ----
    def to(self, *args, **kwargs):
        dtype = kwargs.get("dtype")
        for a in args:
            if isinstance(a, Tensor):
                dtype = a.dtype
            elif _is_dtype(a):
                dtype = a
            else:
                _check_device(a)
        if "device" in kwargs:
            _check_device(kwargs["device"])
        if dtype is None:
            return self
        target = torch_dtypes.to_numpy(dtype)
        if target == self.array.dtype:
            return self
        if target.kind not in "fc":          # an integer or bool result has no autograd history
            with autograd.no_grad():
                return apply("to_dtype", self, dtype=target.name)
        return apply("to_dtype", self, dtype=target.name)

    def type_as(self, other): return self.to(other.dtype)
    # x.float(), x.long() and the other conversions by dtype name are made from _DTYPE_METHODS below

    def type(self, dtype=None):
        if dtype is None:
            return f"torch.{SCALAR_TYPE_NAMES[self.array.dtype.name]}Tensor"
        return self.to(dtype)

    def is_floating_point(self) -> bool: return self.array.dtype.kind == "f"
    def cpu(self): return self
    def cuda(self, *args, **kwargs): raise _unsupported("Tensor.cuda() (Dagscope runs on the CPU only)")
    def element_size(self) -> int: return self.array.dtype.itemsize

    @property
    def device(self):
        return _device("cpu")

    @property
    def is_cuda(self) -> bool: return False

    def new_zeros(self, *size, dtype=None, requires_grad=False):
        return self._new(np.zeros, size, dtype, requires_grad)

    def new_ones(self, *size, dtype=None, requires_grad=False):
        return self._new(np.ones, size, dtype, requires_grad)

    def new_empty(self, *size, dtype=None, requires_grad=False):
        return self._new(np.zeros, size, dtype, requires_grad)

    def new_full(self, size, fill_value, dtype=None, requires_grad=False):
        out = self._new(np.zeros, (size,), dtype, requires_grad)
        out.array.fill(fill_value)
        return out

    def _new(self, make, size, dtype, requires_grad):
        t = Tensor(make(_shape_arg(size), dtype=self.array.dtype if dtype is None else torch_dtypes.to_numpy(dtype)))
        return t.requires_grad_(True) if requires_grad else t


def _raise_broadcast_error(a: tuple, b: tuple) -> None:
    """PyTorch's RuntimeError when shapes `a` and `b` do not broadcast (it names the first
    mismatch from the right); nothing when they do."""
    n = max(len(a), len(b))
    for dim in range(n - 1, -1, -1):
        offset = n - 1 - dim
        size_a = a[len(a) - 1 - offset] if offset < len(a) else 1
        size_b = b[len(b) - 1 - offset] if offset < len(b) else 1
        if size_a != size_b and size_a != 1 and size_b != 1:
            raise RuntimeError(f"The size of tensor a ({size_a}) must match the size of tensor b ({size_b}) at "
                               f"non-singleton dimension {dim}")


def _is_dtype(x) -> bool:
    return isinstance(x, (torch_dtypes.dtype, np.dtype)) or x in (float, int, bool)


def _check_device(device) -> None:
    name = str(getattr(device, "type", device))
    if not name.startswith("cpu"):
        raise _unsupported(f"device {name!r} (Dagscope runs on the CPU only; use 'cpu')")


_LEAF_FLAGS_ONLY = "you can only change requires_grad flags of leaf variables."


def _checked_requires_grad(t: Tensor, value) -> bool:
    """`t.requires_grad = value` as PyTorch allows it: a bool, on a leaf, True only for floats."""
    if type(value) is not bool:
        raise RuntimeError("requires_grad must be a bool")
    if t.grad_fn is not None:
        raise RuntimeError(_LEAF_FLAGS_ONLY if value else
                           _LEAF_FLAGS_ONLY + " If you want to use a computed variable in a subgraph that doesn't "
                           "require differentiation use var_no_grad = var.detach().")
    if value and t.array.dtype.kind != "f":
        raise RuntimeError("only Tensors of floating point and complex dtype can require gradients")
    return value


def _checked_grad(t: Tensor, grad):
    """`t.grad = grad` as PyTorch allows it: None, or a tensor of t's dtype and size."""
    if grad is None:
        return None
    if not isinstance(grad, Tensor):
        raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of type {type(grad).__name__}")
    if grad.array.dtype != t.array.dtype:
        raise RuntimeError(
            f"attempting to assign a gradient with dtype '{cpp_type_name(grad.array.dtype)}' to a tensor with "
            f"grad_dtype '{scalar_type_name(t.array.dtype)}'. The gradient must match the tensor's grad_dtype "
            "(defaults to the tensor's dtype). You can set the tensor's grad_dtype attribute with a specific dtype, "
            "or None to allow any dtype. Set grad_dtype with caution. Diverging the dtypes of a tensor and its "
            "gradient may break downstream systems that assume they match.")
    if grad.array.shape != t.array.shape:
        raise RuntimeError(f"attempting to assign a gradient of size '{list(grad.array.shape)}' to a tensor of size "
                           f"'{list(t.array.shape)}'. Please ensure that the gradient and the tensor are the same size")
    return grad


def _unsupported(what: str):
    return UnsupportedError(f"{what} is not supported by Dagscope")


def _dim(dim, ndim: int) -> int:
    """`dim` as a non-negative axis of a tensor of `ndim` dims (a 0-d tensor has one, as in PyTorch)."""
    n = max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _shape_arg(shape) -> tuple:
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = shape[0]
    return tuple(int(s) for s in shape)


class _Views(list):
    """A tensor's kept views (Tensor._keep_view): (weak reference, view op, attributes) entries, and
    the length at which the dead ones are next swept out."""
    __slots__ = ("sweep_at",)

    def __init__(self):
        super().__init__()
        self.sweep_at = 64


# ---- applying an op ---------------------------------------------------------------------------

_new = object.__new__
# Binary ops whose forward, on two arrays of one dtype, is exactly a numpy ufunc (the registry says
# so in OpDef.extra["same_dtype_ufunc"]): apply calls the ufunc without the forward's Python frame.
_SAME_DTYPE_UFUNCS = {name: op.extra["same_dtype_ufunc"] for name, op in OPS.items()
                      if "same_dtype_ufunc" in op.extra}
_GradMode = autograd._GradMode
_record_node = autograd.record_node
_gradient_edge = autograd.gradient_edge
_next_seq = autograd._next_seq
_NO_ATTRS: dict = {}     # shared by the nodes of attribute-less binary ops (nothing mutates a node's attrs)

def as_tensor_like(x, inputs: tuple) -> Tensor:
    """Wrap a Python scalar (or array-like) as a constant tensor; scalars are weakly typed."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, (bool, int, float)):
        t = Tensor(np.asarray(x, dtype=scalar_dtype(tuple(i.array for i in inputs if isinstance(i, Tensor)), x)))
        t._is_scalar = True
        return t
    arr = np.asarray(x)
    if arr.dtype == np.float64:
        arr = arr.astype(DEFAULT_FLOAT)
    return Tensor(arr)


def apply(name: str, *inputs, **attrs) -> Tensor:
    """Run registered op `name` eagerly; record its grad_fn when a gradient will be needed.

    This is the eager hot path: every op of every program runs through it, so it avoids
    generator expressions and extra calls where a plain loop will do."""
    op = OPS[name]
    tensors = inputs
    for x in inputs:
        if type(x) is not Tensor and not isinstance(x, Tensor):
            tensors = tuple(x if isinstance(x, Tensor) else as_tensor_like(x, inputs) for x in inputs)
            break
    n = len(tensors)
    if n == 1:                        # unrolled: no list of arrays to build for the common arities
        data = op.forward(tensors[0].array, **attrs) if attrs else op.forward(tensors[0].array)
    elif n == 2:
        a, b = tensors[0].array, tensors[1].array
        try:
            if attrs:
                data = op.forward(a, b, **attrs)
            else:
                ufunc = _SAME_DTYPE_UFUNCS.get(name)
                data = ufunc(a, b) if ufunc is not None and a.dtype is b.dtype else op.forward(a, b)
        except ValueError:
            if op.kind == ELEMENTWISE:
                _raise_broadcast_error(a.shape, b.shape)
            raise
    elif n == 3 and not attrs:
        data = op.forward(tensors[0].array, tensors[1].array, tensors[2].array)
    else:
        data = op.forward(*[t.array for t in tensors], **attrs)
    out = _new(Tensor)
    out.array = data if type(data) is np.ndarray else np.asarray(data)
    out._version = 0
    out._requires_grad = False
    out.grad_fn = None
    if op.differentiable and _GradMode.enabled:
        for t in tensors:
            if t._requires_grad:
                out._requires_grad = True
                out.grad_fn = _record_node(op, tensors, attrs, out)
                if op.view:                    # a view in a graph: see Tensor._keep_view
                    tensors[0]._keep_view(out, name, attrs)
                break
    if OP_APPLIED:
        for observer in OP_APPLIED:
            observer(op, tensors, attrs, out)
    return out


def _binary_operator(name: str, dunder: str):
    """Tensor.__mul__ and the like: in C when engine/native loaded (fastops.c), else in Python."""
    op, ufunc, node_class = OPS[name], _SAME_DTYPE_UFUNCS.get(name), autograd.fixed_node_class(OPS[name])
    operator = _python_binary_operator(name)
    if _native is not None and ufunc is not None and (node_class is not None or not op.differentiable):
        # fastops.c calls `operator` for every case it does not handle itself (a scalar operand,
        # a Parameter, mixed dtypes, an error): the Python operator stays the reference
        return _native.binary_operator(dunder, operator, ufunc, node_class, op)
    return operator


def _python_binary_operator(name: str):
    """Tensor.__mul__ and the like: `apply` specialised to one binary op, its ufunc and OpDef
    bound once here rather than looked up on every `x * y` (one Python frame fewer, too)."""
    op = OPS[name]
    ufunc = _SAME_DTYPE_UFUNCS.get(name)
    forward, differentiable, ndarray = op.forward, op.differentiable, np.ndarray
    elementwise = op.kind == ELEMENTWISE
    # The node class, when the op's grad_fn name does not depend on its inputs: record_node is then
    # inlined below (this is the hottest path of a recorded program).
    node_class = autograd.fixed_node_class(op)

    def operator(self, other):
        if type(other) is not Tensor or type(self) is not Tensor:
            return apply(name, self, other)
        x, y = self.array, other.array
        try:
            data = ufunc(x, y) if ufunc is not None and x.dtype is y.dtype else forward(x, y)
        except ValueError:
            if elementwise:
                _raise_broadcast_error(x.shape, y.shape)
            raise
        out = _new(Tensor)
        out.array = data = data if type(data) is ndarray else np.asarray(data)
        out._version = 0
        if (self._requires_grad or other._requires_grad) and differentiable and _GradMode.enabled:
            out._requires_grad = True
            if node_class is None:
                out.grad_fn = _record_node(op, (self, other), _NO_ATTRS, out)
            else:                        # record_node, inlined
                node = node_class(out)
                node.saved = (self, other)
                node.out_data = data
                node.edges = ((self.grad_fn or _gradient_edge(self)) if self._requires_grad else None,
                              (other.grad_fn or _gradient_edge(other)) if other._requires_grad else None)
                if self._version or other._version:
                    node.versions = (self._version, other._version)
                node.seq = _next_seq()
                if NODE_MADE:
                    for observer in NODE_MADE:
                        observer(node)
                out.grad_fn = node
        else:
            out._requires_grad = False
            out.grad_fn = None
        if OP_APPLIED:
            for observer in OP_APPLIED:
                observer(op, (self, other), {}, out)
        return out
    operator.__name__ = operator.__qualname__ = f"Tensor.{name}"
    return operator


def native_notes_where(user_filename: str | None) -> None:
    """The C operators' side of hooks.NODE_MADE: while a recorder runs, each node they make notes
    the line of the innermost frame running `user_filename` and the current nn.Module path (None: off)."""
    if _native is not None:
        _native.note_where(user_filename)


# Methods that are one registered op: `x.exp()` is apply("exp", x), `x.maximum(y)` is
# apply("maximum", x, y), and a reflected operator (`2 & x`) applies the op with self second.
_UNARY_OP_METHODS = {
    "neg": "neg", "__neg__": "neg", "reciprocal": "reciprocal", "exp": "exp", "log": "log", "sqrt": "sqrt",
    "abs": "abs", "__abs__": "abs", "sign": "sign", "tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu",
    "erf": "erf", "sin": "sin", "floor": "floor", "ceil": "ceil", "round": "round", "cos": "cos",
    "isnan": "isnan", "isinf": "isinf", "isposinf": "isposinf", "isneginf": "isneginf", "isfinite": "isfinite",
    "__invert__": "bitwise_not"}
_BINARY_OP_METHODS = {
    "mul": "mul", "remainder": "remainder", "fmod": "fmod", "floor_divide": "floor_divide", "maximum": "maximum",
    "minimum": "minimum", "matmul": "matmul", "eq": "eq", "ne": "ne", "gt": "gt", "lt": "lt", "ge": "ge",
    "le": "le", "__and__": "bitwise_and", "__or__": "bitwise_or", "__xor__": "bitwise_xor",
    "__floordiv__": "floor_divide", "__mod__": "remainder"}
_REFLECTED_OP_METHODS = {
    "__radd__": "add", "__rmul__": "mul", "__rmatmul__": "matmul", "__rand__": "bitwise_and",
    "__ror__": "bitwise_or", "__rfloordiv__": "floor_divide", "__rmod__": "remainder"}


def _op_method(method: str, name: str, arity: int, reflected: bool = False):
    if arity == 1:
        def op_method(self): return apply(name, self)
    elif reflected:
        def op_method(self, other): return apply(name, other, self)
    else:
        def op_method(self, other): return apply(name, self, other)
    op_method.__name__, op_method.__qualname__ = method, f"Tensor.{method}"
    return op_method


for _table, _arity, _reflected in ((_UNARY_OP_METHODS, 1, False), (_BINARY_OP_METHODS, 2, False),
                                   (_REFLECTED_OP_METHODS, 2, True)):
    for _method, _name in _table.items():
        setattr(Tensor, _method, _op_method(_method, _name, _arity, _reflected))

# x.float() is x.to(torch.float32), and so on.
_DTYPE_METHODS = {"float": np.float32, "double": np.float64, "half": np.float16, "long": np.int64,
                  "int": np.int32, "short": np.int16, "bool": np.bool_, "byte": np.uint8}


def _dtype_method(method: str, dtype: np.dtype):
    def to_dtype(self): return self.to(dtype)
    to_dtype.__name__, to_dtype.__qualname__ = method, f"Tensor.{method}"
    return to_dtype


for _method, _type in _DTYPE_METHODS.items():
    setattr(Tensor, _method, _dtype_method(_method, np.dtype(_type)))

_native = native.load()          # None without a C compiler: the Python operators run
if _native is not None:
    _native.setup(Tensor, autograd.Node, np.ndarray, np.asarray, _GradMode, OP_APPLIED, _gradient_edge,
                  autograd._seq, nn_context._stack)
    Tensor.requires_grad = _native.checked_slot("requires_grad", "_requires_grad", _checked_requires_grad)
# erf and GELU's forward and backward in one C pass each where they give numpy's bits (ops/special.py)
special_functions = special.use_native(_native)
# conv2d's col2im, batch norm (engine/ops' fused loops) in C, the same bits as their numpy code
nn_kernels = kernels.use(native.load_kernels())
for _name, _dunder in (("add", "__add__"), ("sub", "__sub__"), ("mul", "__mul__"), ("div", "__truediv__"),
                       ("matmul", "__matmul__"), ("gt", "__gt__"), ("lt", "__lt__"), ("ge", "__ge__"),
                       ("le", "__le__"), ("eq", "__eq__"), ("ne", "__ne__")):
    setattr(Tensor, _dunder, _binary_operator(_name, _dunder))

# Methods that are exactly `apply(name, self)`, run by fastops when it is loaded (the Python method
# stays the reference it falls back on); only ops whose grad_fn name is fixed.
UNARY_METHODS = {"neg": "neg", "__neg__": "neg", "exp": "exp", "log": "log", "sqrt": "sqrt", "abs": "abs",
                 "__abs__": "abs", "tanh": "tanh", "sigmoid": "sigmoid", "relu": "relu", "sin": "sin", "cos": "cos"}
if _native is not None:
    for _method, _name in UNARY_METHODS.items():
        _op, _node_class = OPS[_name], autograd.fixed_node_class(OPS[_name])
        if _node_class is not None:
            setattr(Tensor, _method, _native.unary_operator(_method, getattr(Tensor, _method), _op.forward,
                                                            _node_class, _op))


class TensorBuilder(Builder):
    """Runs vjp rules on Tensors, so that backward itself is recorded (create_graph=True)."""

    def apply(self, name, inputs, attrs):
        return apply(name, *(Tensor(x) if isinstance(x, np.ndarray) else x for x in inputs), **attrs)


