"""Reductions: sum, mean, var, std, norm, max, min, arg-extremes, logsumexp, softmax, cumsum, prod,
var_mean and std_mean."""
from __future__ import annotations

import builtins
import warnings

from engine.compat.torch_dtypes import to_numpy
from engine.errors import UnsupportedError
from engine.functional._common import (_MAX_RESULT, _MIN_RESULT, _correction, _dim, _dims, _require_float,
                                       _type_word)
from engine.tensor import Tensor, apply, numpy_keywords


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


def _dtype_attr(dtype) -> dict:
    """dtype= of cumsum and prod as the op's attribute (a numpy dtype name); none when not given."""
    return {} if dtype is None else {"dtype": to_numpy(dtype).name}


def cumsum(input, dim=None, *, dtype=None):
    if dim is None:
        raise TypeError('cumsum() missing 1 required positional arguments: "dim"')
    return apply("cumsum", input, dim=_dim(int(dim), input.ndim), **_dtype_attr(dtype))


def cumprod(input, dim=None, *, dtype=None):
    if dim is None:
        raise TypeError('cumprod() missing 1 required positional arguments: "dim"')
    return apply("cumprod", input, dim=_dim(int(dim), input.ndim), **_dtype_attr(dtype))


def prod(input, dim=None, keepdim: bool = False, *, dtype=None):
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"prod() received an invalid combination of arguments - got (Tensor, {type(dim).__name__}), "
                        "but expected one of: (Tensor input, *, torch.dtype dtype = None) or (Tensor input, int dim, "
                        "bool keepdim = False, *, torch.dtype dtype = None)")
    dims = None if dim is None else _dim(int(dim), input.ndim)
    return apply("prod", input, dim=dims, keepdim=bool(keepdim) if dims is not None else False, **_dtype_attr(dtype))


def _moments(name: str, input, dim, unbiased, keepdim, correction):
    if isinstance(dim, bool):         # var_mean(x, False): the legacy positional `unbiased`
        dim, unbiased = None, dim
    if input.array.dtype.kind != "f":
        raise RuntimeError(f"{name} only support floating point and complex dtypes")
    dims = _dims(dim)
    spread = apply(name[:3], input, dim=dims, correction=_correction(unbiased, correction), keepdim=keepdim)
    mean = apply("mean", input, dim=dims, keepdim=keepdim)
    node_name = "VarMeanBackward0" if name == "var_mean" else "StdMeanBackward0"
    for out in (spread, mean):        # PyTorch records one node for both outputs, under this name
        if out.grad_fn is not None:
            out.grad_fn.rename(node_name)
    return spread, mean


def var_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("var_mean", input, dim, unbiased, keepdim, correction)


def std_mean(input, dim=None, unbiased=None, keepdim: bool = False, *, correction=None):
    return _moments("std_mean", input, dim, unbiased, keepdim, correction)
