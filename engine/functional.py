"""The functional forms of every op, named and called as torch.* / torch.nn.functional.* are.

Each takes and returns engine Tensors and runs registered ops through `engine.tensor.apply`, so
autograd, tracing and recording see every step. Losses are registered ops (so a printed loss
shows PyTorch's grad_fn) or compositions of registered ops (so their backward graph is real).
"""
from __future__ import annotations

import builtins
from collections import namedtuple

import numpy as np

from engine import autograd
from engine.errors import UnsupportedError
from engine.ops.dtypes import cpp_type_name, scalar_type_name
from engine.ops.movement import slice_bounds
from engine.tensor import Tensor, _raise_broadcast_error, apply, numpy_keywords

__all__ = [
    "add", "sub", "mul", "div", "neg", "pow", "exp", "log", "sqrt", "abs", "sin", "cos", "sigmoid", "tanh",
    "relu", "gelu", "einsum", "sort", "argsort", "topk", "tril", "triu", "normalize", "floor", "ceil", "round",
    "remainder", "floor_divide", "batch_norm", "smooth_l1_loss", "huber_loss", "softplus", "silu", "leaky_relu",
    "erf", "maximum", "minimum", "clamp", "clip", "clamp_min", "clamp_max", "where", "masked_fill", "matmul",
    "mm", "bmm", "linear", "sum", "mean", "var", "std", "norm", "amax", "amin", "max", "min", "argmax",
    "argmin", "logsumexp", "softmax", "log_softmax", "reshape", "flatten", "squeeze", "unsqueeze", "transpose",
    "permute", "cat", "concat", "stack", "gather", "index_select", "narrow", "chunk", "split", "conv2d",
    "max_pool2d", "avg_pool2d", "dropout", "embedding", "one_hot", "layer_norm", "mse_loss", "l1_loss",
    "nll_loss", "cross_entropy", "binary_cross_entropy", "binary_cross_entropy_with_logits", "eq", "ne", "gt",
    "lt", "ge", "le", "isnan", "broadcast_to", "expand", "reciprocal",
]

_ValuesIndices = namedtuple("_ValuesIndices", ["values", "indices"])


def _named(kind: str):
    """PyTorch's torch.return_types.max etc.: a (values, indices) tuple that prints with its name."""
    class ReturnType(_ValuesIndices):
        __slots__ = ()

        def __repr__(self):
            return f"torch.return_types.{kind}(\nvalues={self.values!r},\nindices={self.indices!r})"
    ReturnType.__name__ = kind
    return ReturnType


_MAX_RESULT, _MIN_RESULT = _named("max"), _named("min")


def _dim(dim, ndim: int) -> int:
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})")
    return dim % n


def _dims(dim):
    if dim is None:
        return None
    return tuple(int(d) for d in dim) if isinstance(dim, (list, tuple)) else int(dim)


def _as_tensor(x) -> Tensor:
    if isinstance(x, Tensor):
        return x
    from engine.tensor import as_tensor_like
    return as_tensor_like(x, ())


# ---- arithmetic and elementwise math --------------------------------------------------------------

def add(input, other, *, alpha=1):
    return apply("add", input, other if alpha == 1 else mul(other, alpha))


def sub(input, other, *, alpha=1):
    return apply("sub", input, other if alpha == 1 else mul(other, alpha))


def mul(input, other):
    return apply("mul", input, other)


def div(input, other, *, rounding_mode=None):
    if rounding_mode is None:
        return apply("div", input, other)
    kinds = {getattr(x, "array", np.asarray(x)).dtype.kind for x in (input, other)}
    if rounding_mode == "floor":
        return apply("floor_divide", input, other) if not kinds & {"f"} else apply("floor", apply("div", input, other))
    if rounding_mode == "trunc" and kinds & {"f"}:
        q = apply("div", input, other)
        return where(ge(q, 0), apply("floor", q), apply("ceil", q))
    raise UnsupportedError(f"div(rounding_mode={rounding_mode!r}) on these dtypes is not supported by Dagscope")


def neg(input):
    return apply("neg", input)


def pow(input, exponent):
    if isinstance(input, Tensor) and isinstance(exponent, (int, float)) and not isinstance(exponent, bool):
        return apply("pow_scalar", input, exponent=exponent)
    return apply("pow", input, exponent)


def exp(input): return apply("exp", input)
def log(input): return apply("log", input)
def sqrt(input): return apply("sqrt", input)
def reciprocal(input): return apply("reciprocal", input)
def abs(input): return apply("abs", input)
def sigmoid(input): return apply("sigmoid", input)
def tanh(input): return apply("tanh", input)
def erf(input): return apply("erf", input)
def sin(input): return apply("sin", input)
def floor(input): return apply("floor", input)
def ceil(input): return apply("ceil", input)
def round(input): return apply("round", input)
def remainder(input, other): return apply("remainder", input, other)
def floor_divide(input, other): return apply("floor_divide", input, other)
def cos(input): return apply("cos", input)
def isnan(input): return apply("isnan", input)


def _activation_(input, name: str, node_name: str, **attrs):
    """PyTorch's in-place activation (relu_, leaky_relu_, silu_): the input is overwritten and
    returned, through the tensor's own in-place machinery; with a graph the input takes on the new
    node, named as PyTorch names the in-place variant's."""
    before = input.grad_fn
    input._inplace(name, **attrs)
    if input.grad_fn is not None and input.grad_fn is not before:
        input.grad_fn.rename(node_name)
    return input


def relu(input, inplace: bool = False):
    return _activation_(input, "relu", "ReluBackward0") if inplace else apply("relu", input)


def gelu(input, approximate: str = "none"):
    _require_float(input, "GeluKernelImpl")
    return apply("gelu", input, approximate=approximate)


def softplus(input, beta=1.0, threshold=20.0):
    _require_float(input, "softplus_cpu")
    return apply("softplus", input, beta=float(beta), threshold=float(threshold))


def silu(input, inplace: bool = False):
    _require_float(input, "silu_cpu")
    return _activation_(input, "silu", "SiluBackward0") if inplace else apply("silu", input)


def leaky_relu(input, negative_slope: float = 0.01, inplace: bool = False):
    _require_float(input, "leaky_relu_cpu")
    if inplace:     # (PyTorch's in-place node saves the result instead of the input: ...Backward1)
        return _activation_(input, "leaky_relu", "LeakyReluBackward1", negative_slope=float(negative_slope))
    return apply("leaky_relu", input, negative_slope=float(negative_slope))


def maximum(input, other): return apply("maximum", input, other)
def minimum(input, other): return apply("minimum", input, other)


def clamp(input, min=None, max=None, *, fn=None):
    """torch.clamp with number or tensor bounds. `fn` names the torch function that ran (clamp_min,
    clamp_max) where it is not clamp itself: it changes only the grad_fn name."""
    name, bounds, attrs = clamp_op(min, max, fn)
    return apply(name, input, *bounds, **attrs)


def clamp_op(min=None, max=None, fn=None) -> tuple:
    """(op name, tensor inputs after x, attrs) of a clamp: `clamp` for number bounds, `clamp_tensor`
    (its own gradient rule: ties go to x) for tensor bounds. In-place clamp_ runs the same op."""
    named = {} if fn is None else {"fn": fn}          # (no fn attr unless one is given: graphs show attrs)
    if not isinstance(min, Tensor) and not isinstance(max, Tensor):
        return "clamp", (), {"min": min, "max": max, **named}
    if not all(b is None or isinstance(b, Tensor) for b in (min, max)):
        given = ", ".join(f"{k}={type(v).__name__}" for k, v in (("max", max), ("min", min)) if v is not None)
        raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, {given}), but "
                        "expected one of:\n * (Tensor input, Tensor min = None, Tensor max = None, *, Tensor out "
                        "= None)\n * (Tensor input, Number min = None, Number max = None, *, Tensor out = None)\n")
    bounds = tuple(b for b in (min, max) if b is not None)
    bounds_are = "both" if len(bounds) == 2 else ("min" if min is not None else "max")
    return "clamp_tensor", bounds, {"bounds_are": bounds_are, **named}


clip = clamp


def clamp_min(input, min):
    return clamp(input, min=min, fn="clamp_min")


def clamp_max(input, max):
    return clamp(input, max=max, fn="clamp_max")


def where(condition, input, other):
    return apply("where", condition, input, other)


def masked_fill(input, mask, value):
    if isinstance(value, Tensor):
        if value.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value.ndim} dimension(s).")
        return where(mask, value.to(input.dtype) if value.array.dtype != input.array.dtype else value, input)
    return apply("masked_fill", input, mask, value=value)


def eq(input, other): return apply("eq", input, other)
def ne(input, other): return apply("ne", input, other)
def gt(input, other): return apply("gt", input, other)
def lt(input, other): return apply("lt", input, other)
def ge(input, other): return apply("ge", input, other)
def le(input, other): return apply("le", input, other)


# ---- matrix products -------------------------------------------------------------------------------

def matmul(input, other):
    return apply("matmul", input, other)


def mm(input, mat2):
    if input.ndim != 2 or mat2.ndim != 2:
        raise RuntimeError("self must be a matrix")
    return apply("matmul", input, mat2)


def bmm(input, mat2):
    if input.ndim != 3 or mat2.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    return apply("matmul", input, mat2, fn="bmm")


def einsum(equation: str, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return apply("einsum", *operands, equation=equation)


def linear(input, weight, bias=None):
    """x @ W^T + b as PyTorch 2.13 computes it, so the graph has the same nodes: addmm for 2-D x
    (AddmmBackward0, TBackward0 on W); a contiguous x of 3 or more dims with a 1-D bias is viewed as
    2-D, run through addmm and viewed back (ViewBackward0), a 1-D x too (as one row); otherwise
    matmul, then the bias added."""
    _check_linear_shapes(input, weight, bias)
    # (dims 0 and 1 of a 2-D weight need no range check: apply directly)
    weight_t = apply("transpose", weight, dim0=0, dim1=1, fn="t") if weight.ndim == 2 else weight
    if bias is not None and input.ndim == 2:
        return apply("addmm", bias, input, weight_t)
    if bias is not None and bias.ndim == 1 and weight.ndim == 2 and input.ndim != 2 \
            and input.array.flags.c_contiguous:      # (PyTorch takes this path only for contiguous input)
        leading, features = input.array.shape[:-1], input.array.shape[-1]
        rows = int(np.prod(leading, dtype=np.int64))    # not -1: that fails when a dim is 0
        out = apply("addmm", bias, reshape(input, (rows, features)), weight_t)
        return reshape(out, leading + (out.array.shape[1],))
    out = matmul(input, weight_t)
    return out if bias is None else add(out, bias)


def _check_linear_shapes(input, weight, bias) -> None:
    """PyTorch's errors for a linear layer whose sizes do not fit (numpy's would name gufuncs)."""
    if input.ndim == 0 or weight.ndim == 0:
        raise RuntimeError(f"both arguments to linear need to be at least 1D, but they are {input.ndim}D and "
                           f"{weight.ndim}D")
    if weight.ndim != 2:
        return
    fused = bias is not None and (input.ndim == 2 or (bias.ndim == 1 and input.array.flags.c_contiguous))
    if fused and input.array.dtype != weight.array.dtype:       # PyTorch's addmm (2-D, or viewed as 2-D)
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_type_word(input)} and "
                           f"{_type_word(weight)}")
    if fused and bias.array.dtype != weight.array.dtype:
        raise RuntimeError(f"self and mat2 must have the same dtype, but got {_type_word(bias)} and "
                           f"{_type_word(weight)}")
    if input.array.dtype != weight.array.dtype:                 # PyTorch's matmul
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: {_c_type_name(input)} != "
                           f"{_c_type_name(weight)}")
    out_features, in_features = weight.array.shape
    leading = input.array.shape[:-1]
    rows = int(np.prod(leading, dtype=np.int64))
    if input.array.shape[-1] != in_features:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{input.array.shape[-1]} and "
                           f"{in_features}x{out_features})")
    if bias is not None and bias.ndim == 1 and bias.array.shape[0] not in (1, out_features):
        raise RuntimeError(f"The expanded size of the tensor ({out_features}) must match the existing size "
                           f"({bias.array.shape[0]}) at non-singleton dimension 1.  Target sizes: "
                           f"[{rows}, {out_features}].  Tensor sizes: "
                           f"[{bias.array.shape[0]}]")


# ---- reductions --------------------------------------------------------------------------------------

@numpy_keywords   # (axis=/keepdims= as PyTorch takes them)
def sum(input, dim=None, keepdim: bool = False, *, dtype=None):
    out = apply("sum", input, dim=_dims(dim), keepdim=keepdim)
    return out if dtype is None else out.to(dtype)


@numpy_keywords
def mean(input, dim=None, keepdim: bool = False, *, dtype=None):
    if input.array.dtype.kind != "f" and dtype is None:
        raise RuntimeError("mean(): could not infer output dtype. Input dtype must be either a floating point "
                           f"or complex dtype. Got: {_type_word(input)}")
    return apply("mean", input if dtype is None else input.to(dtype), dim=_dims(dim), keepdim=keepdim)


def _c_type_name(t) -> str:
    """The C++ name PyTorch's kernels use for a tensor's dtype in their messages: 'float', 'long int'."""
    return cpp_type_name(t.array.dtype)


def _require_float(t, kernel: str) -> None:
    """PyTorch's kernels for these activations exist for floating dtypes only."""
    if t.array.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(t)}\'')


def _type_word(t) -> str:
    """PyTorch's ScalarType name for a tensor's dtype: 'Float', 'Long'."""
    return scalar_type_name(t.array.dtype)


def _correction(unbiased, correction) -> int:
    if correction is not None:
        return int(correction)
    return 1 if unbiased is None or unbiased else 0


@numpy_keywords
def var(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):         # var(x, False): the legacy positional `unbiased`
        dim, unbiased = None, dim
    return apply("var", input, dim=_dims(dim), correction=_correction(unbiased, correction), keepdim=keepdim)


@numpy_keywords
def std(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    return apply("std", input, dim=_dims(dim), correction=_correction(unbiased, correction), keepdim=keepdim)


def norm(input, p="fro", dim=None, keepdim: bool = False, dtype=None):
    """A vector norm (p a number or inf; 'fro' is 2) over every element or the dims given: PyTorch's
    linalg.vector_norm, whose gradient is 0 where the norm is 0."""
    if p is None or p == "fro":
        p = 2.0
    if isinstance(p, str) or isinstance(p, bool) or not isinstance(p, (int, float)):
        raise UnsupportedError(f"norm(p={p!r}) is not supported by Dagscope (vector norms only: a number, inf "
                               "or 'fro')")
    if dtype is not None:
        input = input.to(dtype)
    if input.array.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_type_word(input)}")
    dims = _dims(dim)
    if dims is not None:
        dims = tuple(_dim(d, input.ndim) for d in (dims if isinstance(dims, tuple) else (dims,)))
    return apply("norm", input, p=float(p), dim=dims, keepdim=keepdim)


@numpy_keywords
def amax(input, dim=(), keepdim: bool = False):
    return apply("amax", input, dim=_dims(dim) if dim != () else None, keepdim=keepdim)


@numpy_keywords
def amin(input, dim=(), keepdim: bool = False):
    return apply("amin", input, dim=_dims(dim) if dim != () else None, keepdim=keepdim)


def _extreme(name, result_type, input, dim, keepdim):
    if isinstance(dim, Tensor):                       # torch.max(a, b) is the elementwise maximum
        return apply("maximum" if name == "max" else "minimum", input, dim)
    if dim is None:
        return apply(name, input)
    d = _dim(dim, input.ndim)
    values = apply(name, input, dim=d, keepdim=keepdim)
    indices = apply("argmax" if name == "max" else "argmin", input, dim=d, keepdim=keepdim)
    return result_type(values, indices)


@numpy_keywords
def max(input, dim=None, keepdim: bool = False):
    return _extreme("max", _MAX_RESULT, input, dim, keepdim)


@numpy_keywords
def min(input, dim=None, keepdim: bool = False):
    return _extreme("min", _MIN_RESULT, input, dim, keepdim)


@numpy_keywords
def argmax(input, dim=None, keepdim: bool = False):
    return apply("argmax", input, dim=None if dim is None else _dim(dim, input.ndim), keepdim=keepdim)


@numpy_keywords
def argmin(input, dim=None, keepdim: bool = False):
    return apply("argmin", input, dim=None if dim is None else _dim(dim, input.ndim), keepdim=keepdim)


@numpy_keywords
def logsumexp(input, dim, keepdim: bool = False):
    return apply("logsumexp", input, dim=_dims(dim), keepdim=keepdim)


def _softmax_dim(input, dim):
    if dim is None:   # PyTorch's legacy implicit choice, with its warning
        import warnings
        warnings.warn("Implicit dimension choice for softmax has been deprecated. Change the call to include "
                      "dim=X as an argument.", UserWarning, stacklevel=3)
        return 0 if input.ndim in (0, 1, 3) else 1
    return _dim(dim, input.ndim)


def _softmax_kernel(name: str, x, dim: int) -> str:
    return f"{name}_lastdim_kernel_impl" if dim == builtins.max(x.ndim, 1) - 1 else f"{name}_kernel_impl"


def softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    x = input if dtype is None else input.to(dtype)
    d = _softmax_dim(x, dim)
    _require_float(x, _softmax_kernel("softmax", x, d))
    return apply("softmax", x, dim=d)


def log_softmax(input, dim=None, _stacklevel: int = 3, dtype=None):
    x = input if dtype is None else input.to(dtype)
    d = _softmax_dim(x, dim)
    _require_float(x, _softmax_kernel("log_softmax", x, d))
    return apply("log_softmax", x, dim=d)


# ---- shapes ----------------------------------------------------------------------------------------

def reshape(input, shape):
    return input.reshape(shape)


def flatten(input, start_dim: int = 0, end_dim: int = -1):
    if input.ndim == 0:
        return reshape(input, (1,))
    s, e = _dim(start_dim, input.ndim), _dim(end_dim, input.ndim)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = input.array.shape
    return reshape(input, shape[:s] + (int(np.prod(shape[s:e + 1], dtype=np.int64)),) + shape[e + 1:])


def squeeze(input, dim=None):
    if dim is None:
        return apply("squeeze", input)
    if isinstance(dim, (tuple, list)):
        return apply("squeeze", input, dim=tuple(_dim(d, input.ndim) for d in dim))
    return apply("squeeze", input, dim=_dim(dim, input.ndim))


def unsqueeze(input, dim: int):
    return apply("unsqueeze", input, dim=dim % (input.ndim + 1) if -input.ndim - 1 <= dim <= input.ndim else dim)


def transpose(input, dim0: int, dim1: int):
    return apply("transpose", input, dim0=_dim(dim0, input.ndim), dim1=_dim(dim1, input.ndim), fn="transpose")


def permute(input, dims):
    return apply("permute", input, dims=tuple(_dim(d, input.ndim) for d in dims))


def expand(input, *sizes):
    return input.expand(*sizes)


def broadcast_to(input, size):
    return input.expand(*size)


@numpy_keywords
def cat(tensors, dim: int = 0):
    tensors = [_as_tensor(t) for t in tensors]
    if not tensors:      # (a ValueError in PyTorch, unlike stack's RuntimeError)
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    # (dim counts in the first tensor that is not a legacy empty 1-D one, which cat leaves out)
    first = next((t for t in tensors if t.array.shape != (0,)), tensors[0])
    return apply("cat", *tensors, dim=_dim(dim, first.ndim))


concat = concatenate = cat


@numpy_keywords
def stack(tensors, dim: int = 0):
    tensors = [_as_tensor(t) for t in tensors]
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    return apply("stack", *tensors, dim=_dim(dim, tensors[0].ndim + 1))


def narrow(input, dim: int, start: int, length: int):
    d = _dim(dim, input.ndim)
    start = start % input.array.shape[d] if start < 0 else start
    return apply("slice", input, dim=d, start=start, end=start + length, step=1)


def split(tensor, split_size_or_sections, dim: int = 0):
    d = _dim(dim, tensor.ndim)
    size = tensor.array.shape[d]
    if isinstance(split_size_or_sections, int):
        step, fn = split_size_or_sections, "split"
        bounds = [(s, s + step) for s in range(0, size, step)] or [(0, 0)]
    else:
        edges, fn = np.cumsum([0] + list(split_size_or_sections)), "split_with_sizes"
        if edges[-1] != size:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} (input tensor's "
                               f"size at dimension {d}), but got split_sizes={list(split_size_or_sections)}")
        bounds = list(zip(edges[:-1], edges[1:]))
    return tuple(apply("slice", tensor, dim=d, start=int(a), end=int(builtins.min(b, size)), step=1, fn=fn)
                 for a, b in bounds)


def chunk(input, chunks: int, dim: int = 0):
    size = input.array.shape[_dim(dim, input.ndim)]
    return split(input, builtins.max(-(-size // chunks), 1), dim)


# ---- indexing --------------------------------------------------------------------------------------

def tril(input, diagonal: int = 0):
    return apply("tril", input, diagonal=int(diagonal))


def triu(input, diagonal: int = 0):
    return apply("triu", input, diagonal=int(diagonal))


def gather(input, dim: int, index, *, sparse_grad: bool = False):
    return apply("gather", input, index, dim=_dim(dim, input.ndim))


_SortResult, _TopkResult = _named("sort"), _named("topk")


def argsort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    return apply("argsort", input, dim=_dim(dim, input.ndim), descending=bool(descending))


def sort(input, dim: int = -1, descending: bool = False, stable: bool = False):
    """(values, indices): argsort's indices, and the values read at them by the sort op (SortBackward0)."""
    if input.ndim == 0:
        return _SortResult(input, Tensor(np.zeros((), np.int64)))
    d = _dim(dim, input.ndim)
    indices = argsort(input, d, descending)
    return _SortResult(apply("sort", input, indices, dim=d), indices)


def topk(input, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    d = _dim(dim, input.ndim)
    if not 0 <= k <= input.array.shape[d]:
        raise RuntimeError("selected index k out of range")
    indices = apply("slice", argsort(input, d, descending=largest), dim=d, start=0, end=k, step=1)
    return _TopkResult(apply("topk", input, indices, dim=d), indices)


def index_select(input, dim: int, index):
    d = _dim(dim, input.ndim)
    return apply("index", input, index, positions=(d,), fn="index_select")


def _key_tuple(key) -> tuple:
    if not isinstance(key, tuple):
        key = (key,)
    out = []
    for k in key:
        if isinstance(k, (list, np.ndarray)) and not isinstance(k, Tensor):
            arr = np.asarray(k)
            k = Tensor(arr.astype(np.int64) if arr.dtype.kind in "iu" or arr.size == 0 else arr)
        elif isinstance(k, Tensor) and k.array.dtype.kind not in "iub":
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        elif isinstance(k, bool):
            raise UnsupportedError("indexing with a Python bool is not supported by Dagscope")
        elif isinstance(k, np.integer):
            k = int(k)
        elif not isinstance(k, (int, slice, type(None), type(Ellipsis), Tensor)):
            raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables are "
                             "valid indices")
        out.append(k)
    consumed = builtins.sum(k.ndim if isinstance(k, Tensor) and k.array.dtype == np.bool_ else 1
                            for k in out if k is not None and k is not Ellipsis)
    if builtins.sum(k is Ellipsis for k in out) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    return tuple(_FILL if k is Ellipsis else k for k in out), consumed


_FILL = object()      # where the ellipsis stood: filled with full slices once the tensor's ndim is known


def getitem(x: Tensor, key) -> Tensor:
    """x[key] as PyTorch does it: basic parts become select/slice/unsqueeze ops applied left to right,
    integer and boolean tensors one `index` op at the end (IndexBackward0)."""
    parts, consumed = _key_tuple(key)
    if consumed > x.ndim:
        raise IndexError(f"too many indices for tensor of dimension {x.ndim}")
    expanded = []
    for p in parts:
        if p is _FILL:
            expanded.extend([slice(None)] * (x.ndim - consumed))
        else:
            expanded.append(p)
    out, dim = x, 0
    tensors, positions = [], []
    for p in expanded:
        if p is None:
            out = apply("unsqueeze", out, dim=dim)
            dim += 1
        elif isinstance(p, int):
            out = apply("select", out, dim=dim, index=_check_index(p, out.array.shape[dim], dim))
        elif isinstance(p, slice):
            size = out.array.shape[dim]
            start, stop, step = slice_bounds(size, p.start, p.stop, p.step)
            if not (start == 0 and stop == size and step == 1):   # a full slice is no op (as PyTorch)
                out = apply("slice", out, dim=dim, start=start, end=stop, step=step)
            dim += 1
        elif p.array.dtype == np.bool_:
            mask = p.array
            shape = out.array.shape[dim:dim + mask.ndim]
            if mask.shape != shape:
                raise IndexError(f"The shape of the mask {list(mask.shape)} at index {dim} does not match the "
                                 f"shape of the indexed tensor {list(out.array.shape)} at index {dim}")
            for axis_index in np.nonzero(mask) if mask.ndim else (np.zeros(int(mask), np.int64),):
                tensors.append(Tensor(axis_index.astype(np.int64)))
                positions.append(dim)
                dim += 1
            if mask.ndim == 0:     # x[True-tensor]: a new leading dim of size 1 (or 0)
                out = apply("unsqueeze", out, dim=dim - 1)
        else:
            tensors.append(p)
            positions.append(dim)
            dim += 1
    if tensors:
        out = apply("index", out, *tensors, positions=tuple(positions))
    elif out is x:   # x[:] / x[...]: PyTorch returns a new view (an alias) of x
        out = apply("slice", x, dim=0, start=0, end=x.array.shape[0], step=1) if x.ndim else apply("clone", x)
    return out


def _check_index(i: int, size: int, dim: int) -> int:
    if not -size <= i < size:
        raise IndexError(f"index {i} is out of bounds for dimension {dim} with size {size}")
    return i % size


def numpy_key(key):
    """The same key with Tensors replaced by their arrays (for direct numpy assignment)."""
    parts = key if isinstance(key, tuple) else (key,)
    out = tuple(p.array if isinstance(p, Tensor) else p for p in parts)
    return out if isinstance(key, tuple) else out[0]


def setitem(x: Tensor, key, value) -> None:
    """x[key] = value. Without a gradient to track, numpy assignment in place (views see it). With
    one, an index_put op whose node becomes x's grad_fn (PyTorch's CopySlices)."""
    needs_grad = autograd._GradMode.enabled and (x.requires_grad or
                                                 (isinstance(value, Tensor) and value.requires_grad))
    if isinstance(value, Tensor):
        value = _value_that_fits(x, key, value)
    if not needs_grad:
        x.array[numpy_key(key)] = value.array if isinstance(value, Tensor) else value
        x._version += 1
        return
    if isinstance(value, Tensor) and _is_the_view(x, key, value):
        # `x[key] *= 2` ends with x[key] = (that view, changed in place): the change already went
        # into x (Tensor._write_through), and copying a view onto itself changes nothing
        return
    x._check_inplace()
    flat = np.arange(x.array.size, dtype=np.int64).reshape(x.array.shape)[numpy_key(key)]
    coords = [Tensor(c) for c in np.unravel_index(flat, x.array.shape)]
    out = apply("index_put", x._alias(), value, *coords, positions=tuple(range(x.ndim)))
    x._become(out, None if _writes_x_itself(key) else "CopySlices")


def _is_the_view(x: Tensor, key, value: Tensor) -> bool:
    """Whether `value` is the very view x[key] (the same memory, shape and strides)."""
    if value.array.base is None or not np.may_share_memory(value.array, x.array):
        return False
    parts = numpy_key(key)
    parts = parts if isinstance(parts, tuple) else (parts,)
    if not any(p is Ellipsis for p in parts):
        parts += (Ellipsis,)                   # so that x[i] of a 1-D array is a 0-d view, not a scalar
    target = x.array[parts]
    return (target.shape == value.array.shape and target.strides == value.array.strides
            and target.__array_interface__["data"][0] == value.array.__array_interface__["data"][0])


def _value_that_fits(x: Tensor, key, value: Tensor) -> Tensor:
    """The value without its leading 1-dims (as PyTorch drops them), or PyTorch's error for a value that
    does not broadcast to x[key]: numpy's would name numpy's rules, or let a mask assignment through."""
    target = np.lib.stride_tricks.as_strided(np.zeros(1, np.bool_), x.array.shape, (0,) * x.ndim)
    target = target[numpy_key(key)].shape          # (a zero-stride stand-in: no copy of x)
    shape = value.array.shape
    start = 0
    while start < len(shape) and shape[start] == 1:
        start += 1
    core = shape[start:]
    if len(core) <= len(target) and all(c in (1, t) for c, t in zip(reversed(core), reversed(target))):
        return value if start == 0 else value.reshape(core)
    parts, _ = _key_tuple(key)
    if any(isinstance(p, Tensor) and (p.ndim > 0 or p.array.dtype == np.bool_) for p in parts):
        raise RuntimeError(f"shape mismatch: value tensor of shape {list(shape)} cannot be broadcast to indexing "
                           f"result of shape {list(target)}")
    value.reshape(core).expand(*target)            # raises expand's own error, as PyTorch's copy_ does


def _writes_x_itself(key) -> bool:
    """Whether PyTorch runs x[key] = v as index_put_ on x itself (its node IndexPutBackward0): tensor or
    list indices beside only full slices and `...`. A key with an int, None or a partial slice first
    takes a view of x and writes into it, which x records as CopySlices."""
    parts, _ = _key_tuple(key)
    advanced = [p for p in parts if isinstance(p, Tensor) and (p.ndim > 0 or p.array.dtype == np.bool_)]
    basic = [p for p in parts if not any(p is a for a in advanced)]
    return bool(advanced) and all(p is _FILL or (isinstance(p, slice) and p == slice(None)) for p in basic)


# ---- nn ----------------------------------------------------------------------------------------------

def _unsupported(name, **options):
    bad = {k: v for k, v in options.items() if v}
    if bad:
        raise UnsupportedError(f"{name} with {', '.join(f'{k}={v!r}' for k, v in bad.items())} is not "
                               "supported by Dagscope")


def _pair(v):
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    _unsupported("conv2d", dilation=_pair(dilation) != (1, 1) and dilation, groups=groups != 1 and groups)
    if isinstance(padding, str):
        if padding == "valid":
            padding = 0
        elif padding == "same":
            if _pair(stride) != (1, 1):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            kh, kw = weight.array.shape[2:]
            if kh % 2 == 0 or kw % 2 == 0:
                raise UnsupportedError("conv2d padding='same' with an even kernel size is not supported")
            padding = (kh // 2, kw // 2)
        else:
            raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    _check_conv2d_shapes(input, weight, bias, _pair(stride), _pair(padding))
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    args = (x, weight) if bias is None else (x, weight, bias)
    out = apply("conv2d", *args, stride=_pair(stride), padding=_pair(padding))
    return squeeze(out, 0) if unbatched else out


def _check_conv2d_shapes(input, weight, bias, stride, padding) -> None:
    """PyTorch's wording for the shape mistakes a conv2d call can make (the channel check is the op's)."""
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.array.shape)}")
    if weight.ndim == 3:     # PyTorch reads a 3-D weight as a 1-D convolution's, with one stride value
        raise RuntimeError("expected stride to be a single integer value or a list of 1 values to match the "
                           f"convolution dimensions, but got stride={list(stride)}")
    if bias is not None and (bias.ndim != 1 or bias.array.shape[0] != weight.array.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.array.shape)}, expected bias to be 1-dimensional "
                           f"with {weight.array.shape[0]} elements, but got bias of size {list(bias.array.shape)} "
                           "instead")
    if bias is not None and bias.array.dtype != input.array.dtype:
        raise RuntimeError(f"Input type ({_c_type_name(input)}) and bias type ({_c_type_name(bias)}) should be the "
                           "same")
    if weight.array.dtype != input.array.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(input)} but found {_type_word(weight)}")
    padded = [size + 2 * pad for size, pad in zip(input.array.shape[-2:], padding)]
    kernel = weight.array.shape[2:]
    if padded[0] < kernel[0] or padded[1] < kernel[1]:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel size: "
                           f"({kernel[0]} x {kernel[1]}). Kernel size can't be greater than actual input size")


def _pool(name, input, kernel_size, stride, padding, **attrs):
    stride = kernel_size if stride is None or stride == [] or stride == () else stride
    _check_pool_shapes(input, _pair(kernel_size), _pair(stride), _pair(padding))
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    out = apply(name, x, kernel_size=_pair(kernel_size), stride=_pair(stride), padding=_pair(padding), **attrs)
    return squeeze(out, 0) if unbatched else out


def _check_pool_shapes(input, kernel, stride, padding) -> None:
    """PyTorch's wording for a pooling window that does not fit the input."""
    if input.ndim not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        pad, size = (padding[0], kernel[0]) if padding[0] > kernel[0] // 2 else (padding[1], kernel[1])
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={size} and dilation=1")
    channels, height, width = input.array.shape[-3:]
    out = [(size + 2 * pad - k) // s + 1 for size, pad, k, s in zip((height, width), padding, kernel, stride)]
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(f"Given input size: ({channels}x{height}x{width}). Calculated output size: "
                           f"({channels}x{out[0]}x{out[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _unsupported("max_pool2d", dilation=_pair(dilation) != (1, 1) and dilation, ceil_mode=ceil_mode,
                 return_indices=return_indices)
    return _pool("max_pool2d", input, kernel_size, stride, padding)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    _unsupported("avg_pool2d", ceil_mode=ceil_mode, count_include_pad=not count_include_pad and "False",
                 divisor_override=divisor_override)
    return _pool("avg_pool2d", input, kernel_size, stride, padding)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    from engine.creation import draw_in_layout, is_dense, rng
    # PyTorch's CPU dropout: noise = empty_like(input).bernoulli_(1 - p) (an element is kept where a
    # double uniform is below 1 - p; drawn in the input's memory order, which empty_like keeps when it
    # is dense: a transposed input gets the transposed mask), out = input * noise / (1 - p); for
    # p == 1 it multiplies by zero and draws nothing
    shape = input.array.shape
    if p == 1:
        mask = np.zeros(shape, np.bool_)
    elif is_dense(input.array):
        mask = draw_in_layout(input.array, lambda drawn_shape, contiguous: rng().bernoulli(1 - p, drawn_shape))
    else:
        mask = rng().bernoulli(1 - p, shape)
    mask = Tensor(mask)
    if inplace:
        return input._inplace("dropout", mask, p=float(p))
    return apply("dropout", input, mask, p=float(p))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    _unsupported("embedding", max_norm=max_norm, scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)
    indices = input.array
    if indices.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_type_word(input)}Tensor instead (while checking arguments "
                           "for embedding)")
    # (numpy would read a negative index from the end: a silently wrong row)
    if indices.size and (indices.min() < 0 or indices.max() >= weight.array.shape[0]):
        raise IndexError("index out of range in self")
    return apply("embedding", input, weight, padding_idx=padding_idx)


def one_hot(tensor, num_classes: int = -1):
    if tensor.array.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.array.size and tensor.array.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(tensor.array.max()) + 1 if tensor.array.size else 0
    return apply("one_hot", tensor, num_classes=int(num_classes))


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """input / max(||input||_p along dim, eps), as PyTorch (its vector norm, then clamp_min)."""
    norm = apply("norm", input, p=float(p), dim=(_dim(dim, input.ndim),), keepdim=True)
    return div(input, clamp(norm, min=eps, fn="clamp_min").expand(*input.array.shape))   # (expand_as, as PyTorch)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """PyTorch's native_layer_norm: one op over the last len(normalized_shape) dims."""
    normalized_shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
        else tuple(normalized_shape)
    if tuple(input.array.shape[input.ndim - len(normalized_shape):]) != normalized_shape or \
            len(normalized_shape) > input.ndim:
        shape = ", ".join(str(n) for n in normalized_shape)
        raise RuntimeError(f"Given normalized_shape=[{shape}], expected input with shape [*, {shape}], but got "
                           f"input of size{list(input.array.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.array.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p.array.shape)} and normalized_shape = {list(normalized_shape)}")
    if any(p is not None and p.array.dtype != input.array.dtype for p in (weight, bias)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    _require_float(input, "LayerNormKernelImpl")
    params = tuple(p for p in (weight, bias) if p is not None)
    return apply("native_layer_norm", input, *params, normalized_ndim=len(normalized_shape), eps=float(eps),
                 has_weight=weight is not None, has_bias=bias is not None)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """PyTorch's native_batch_norm: normalize over every dim but the channels (dim 1), one op. In
    training, batch statistics are used and the running ones updated in place (with the unbiased
    variance, as PyTorch does); in eval the running statistics are the op's inputs."""
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-builtins.max(input.ndim, 1)}, "
                         f"{builtins.max(input.ndim, 1) - 1}], but got 1)")
    dims = (0,) + tuple(range(2, input.ndim))
    channels = input.array.shape[1]
    if input.array.dtype.kind != "f":
        raise NotImplementedError(f'"batch_norm" not implemented for \'{_type_word(input)}\'')
    if any(p is not None and p.array.dtype != input.array.dtype for p in (weight, bias, running_mean, running_var)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    params = tuple(p for p in (weight, bias) if p is not None)
    if training:
        count = input.numel() // channels
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        if running_mean is not None or running_var is not None:
            with autograd.no_grad():
                _update_running_stats(input, running_mean, running_var, dims, count, momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in "
                               "evaluation mode")
        params += (running_mean, running_var)
    return apply("native_batch_norm", input, *params, training=bool(training), eps=float(eps),
                 has_weight=weight is not None, has_bias=bias is not None)


def _update_running_stats(input, running_mean, running_var, dims, count, momentum) -> None:
    """running = (1 - momentum) running + momentum batch statistic (the variance unbiased)."""
    if running_mean is not None:
        mu = mean(input, dim=dims, keepdim=True)
        running_mean.mul_(1 - momentum).add_(reshape(mu, (-1,)) * momentum)
    if running_var is not None:
        variance = var(input, dim=dims, keepdim=True, correction=0)
        unbiased = reshape(variance, (-1,)) * (count / (count - 1))
        running_var.mul_(1 - momentum).add_(unbiased * momentum)


# ---- losses --------------------------------------------------------------------------------------------

def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _float_pair(input, target, kernel: str):
    """input and target in one float dtype, as PyTorch's pointwise losses take them: an integer side
    takes the other's float dtype; two integer sides are an error naming the kernel."""
    kinds = input.array.dtype.kind + target.array.dtype.kind
    if kinds in ("fi", "fu", "fb"):       # PyTorch promotes an integer target to the input's float dtype
        target = target.to(input.dtype)
    elif kinds in ("if", "uf", "bf"):
        input = input.to(target.dtype)
    result = np.result_type(input.array, target.array)
    if result.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(Tensor(np.zeros(0, result)))}\'')
    return input, target


def _warn_if_broadcast(input, target) -> None:
    """PyTorch's warning (pointing at the caller's line) when a pointwise loss broadcasts its target,
    then its error when the shapes do not broadcast at all."""
    if tuple(target.array.shape) != tuple(input.array.shape):
        import warnings
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=3)
        _raise_broadcast_error(tuple(input.array.shape), tuple(target.array.shape))


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    _warn_if_broadcast(input, target)
    input, target = _float_pair(input, target, "mse_cpu")
    return apply("mse_loss", input, target, reduction=_reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    _warn_if_broadcast(input, target)
    return _reduce_loss(abs(sub(input, target)), _reduction(size_average, reduce, reduction))


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    _check_nll_args(input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    out_shape = None
    if input.ndim == 3 or input.ndim > 4:
        # PyTorch's nll_loss_nd: every input of more than 2 dims goes through the 4-D (image) kernel,
        # as (N, C, 1, rest) with the per-position losses viewed back ('none'): NllLoss2DBackward0
        n, c = input.array.shape[:2]
        out_shape = (n,) + tuple(input.array.shape[2:])
        flat = (1, -1) if input.numel() else (0, 0)
        input, target = reshape(input, (n, c) + flat), reshape(target, (n,) + flat)
    if weight is not None and weight.requires_grad and autograd._GradMode.enabled:
        kernel = "nll_loss2d_forward" if input.ndim > 2 else "nll_loss_forward"
        raise RuntimeError(f"The function '{kernel}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    args = (input, target) if weight is None else (input, target, weight)
    loss = apply("nll_loss", *args, reduction=reduction, ignore_index=int(ignore_index))
    return loss.view(out_shape) if out_shape is not None and reduction == "none" else loss


def _check_nll_args(input, target, weight) -> None:
    """The checks and wording of PyTorch's nll_loss_nd and nll_loss (numpy would index wrongly or fail
    with its own words)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and target.ndim >= 1 and input.array.shape[0] != target.array.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.array.shape[0]}) to match target batch_size "
                         f"({target.array.shape[0]}).")
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim >= 3 and target.array.shape[1:] != input.array.shape[2:]:
        expected = [input.array.shape[0], *input.array.shape[2:]]
        raise RuntimeError(f"Expected target size {expected}, got {list(target.array.shape)}")
    n_classes = input.array.shape[1 if input.ndim >= 2 else 0]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.array.shape)}")
    if target.array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_word(target)}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing):g}")
    class_dim = 1 if input.ndim >= 2 else 0
    logp = log_softmax(input, dim=class_dim)
    if tuple(target.array.shape) == tuple(input.array.shape):     # PyTorch's test for class probabilities
        if target.array.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_type_word(target)}")
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    return _label_smoothed(nll, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim)


def _label_smoothed(nll, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim):
    """PyTorch's cross_entropy_loss_label_smoothing: (1 - e) nll + e / C * the (weighted) sum of
    -logp over the classes, 0 at ignored targets; 'mean' divides by the count (or weight) of the
    counted targets, as nll_loss does."""
    ignored = eq(target, ignore_index)
    per_class = logp if weight is None else mul(logp, _class_view(weight, logp))
    smooth = masked_fill(neg(sum(per_class, dim=class_dim)), ignored, 0.0)
    if reduction == "mean":
        if weight is None:
            total = sum(ne(target, ignore_index))
        else:
            total = sum(getitem(weight, Tensor(target.array[~ignored.array])))
        smooth = div(sum(smooth), total)
    else:
        smooth = _reduce_loss(smooth, reduction)
    n_classes = logp.array.shape[class_dim]
    return add(mul(nll, 1.0 - label_smoothing), mul(smooth, label_smoothing / n_classes))


def _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing, class_dim):
    """PyTorch's composition (cross_entropy_loss_prob_target): -(logp * target * weight) summed, and
    for 'mean' divided by the number of samples (a number, not a tensor: DivBackward1)."""
    n_classes = logp.array.shape[class_dim]
    if label_smoothing:
        target = add(mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    per = mul(logp, target) if weight is None else mul(mul(logp, target), _class_view(weight, logp))
    if reduction == "none":
        return neg(sum(per, dim=class_dim))
    if reduction == "sum":
        return neg(sum(per))
    if reduction == "mean":
        return apply("div_scalar", neg(sum(per)), divisor=logp.numel() // n_classes)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _class_view(weight, input):
    return reshape(weight, (1, -1) + (1,) * (input.ndim - 2)) if input.ndim >= 2 else weight


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.array.dtype != input.array.dtype:
        raise RuntimeError(f"Found dtype {_type_word(target)} but expected {_type_word(input)}")
    return apply("binary_cross_entropy", input, target, 1.0 if weight is None else weight,
                 reduction=_reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if target.array.dtype.kind != "f":      # the loss is written into a tensor of the target's dtype
        raise RuntimeError(f"result type {_type_word(input)} can't be cast to the desired output type "
                           f"{_type_word(target)}")
    return apply("binary_cross_entropy_with_logits", input, target, 1.0 if weight is None else weight,
                 1.0 if pos_weight is None else pos_weight, reduction=_reduction(size_average, reduce, reduction))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    _warn_if_broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _float_pair(input, target, "huber_cpu")
    if target.array.dtype != input.array.dtype:      # PyTorch's huber_loss computes in the input's dtype
        target = target.to(input.dtype)
    return apply("huber_loss", input, target, reduction=_reduction(None, None, reduction), delta=float(delta))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
    _warn_if_broadcast(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:           # PyTorch computes an l1_loss then (without a second warning)
        return _reduce_loss(abs(sub(input, target)), reduction)
    input, target = _float_pair(input, target, "smooth_l1_cpu")
    return apply("smooth_l1_loss", input, target, reduction=reduction, beta=float(beta))


# cumsum, prod, unbind, var_mean/std_mean, scatter and index_put live in their own module (bound last:
# it imports helpers from this one).
from engine.functional_scatter import (cumsum, index_put, index_put_, prod, scatter, scatter_, scatter_add,  # noqa: E402
                                       scatter_add_, std_mean, unbind, var_mean)

__all__ += ["cumsum", "prod", "unbind", "var_mean", "std_mean", "scatter", "scatter_add", "index_put"]
