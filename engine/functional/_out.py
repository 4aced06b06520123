"""PyTorch's `out=`: a function's result written into a tensor the caller gives, and that tensor
returned. How the result's dtype meets out's depends on the kernel family, as in ATen:

- "exact": products, norm, gather, tril/triu, argmax (structured kernels that check out's dtype):
  out must have the result's dtype ("Expected out tensor to have dtype float, but got double instead");
- "cast": pointwise ops, mean, var/std (TensorIterator): the result is cast to out's dtype when that
  is a cast PyTorch allows (within a kind, or up: int to float, bool to any), else "result type Float
  can't be cast to the desired output type Long";
- "accumulate": sum, prod, cumsum, cumprod: computed in out's dtype (their `dtype=`);
- "concat": cat/stack: cast like "cast", with torch.cat's own TypeError.

A wrong shape resizes out, with PyTorch's deprecation warning when out had elements. No graph: out=
refuses inputs that require grad (while grad mode is on), as PyTorch does.

max/min with a dim, sort and topk return (values, indices): their out= is a pair of tensors (values
of the input's dtype, indices int64, each exactly), filled and returned as torch.return_types.<name>_out
(`with_pair_out`); max/min without a dim, or of two tensors, take one tensor as the others do.
"""
from __future__ import annotations

import functools
import warnings

import numpy as np

from engine import autograd
from engine.functional._common import _named
from engine.ops.dtypes import cpp_type_name, scalar_type_name
from engine.tensor import Tensor

EXACT, CAST, ACCUMULATE, CONCAT = "exact", "cast", "accumulate", "concat"


def needs_grad(args, kwargs=None) -> bool:
    """Whether any tensor argument (or one in a list argument: cat's) requires grad while grad mode is on."""
    if not autograd.is_grad_enabled():
        return False
    for a in (*args, *(kwargs or {}).values()):
        if isinstance(a, Tensor) and a.requires_grad:
            return True
        if isinstance(a, (list, tuple)) and any(isinstance(t, Tensor) and t.requires_grad for t in a):
            return True
    return False


def refuse_grad(name: str) -> RuntimeError:
    return RuntimeError(f"{name}(): functions with out=... arguments don't support automatic differentiation, "
                        "but one of the arguments requires grad.")


def with_out(fn, name: str, rule: str):
    """`fn` taking PyTorch's keyword-only `out=` too (without it, `fn` itself runs)."""
    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if not isinstance(out, Tensor):
            raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
        if needs_grad(args, kwargs):
            raise refuse_grad(name)
        if rule == ACCUMULATE and "dtype" not in kwargs:
            kwargs["dtype"] = out.array.dtype
        return write_into(out, name, fn(*args, **kwargs), rule)
    return call


# where out= is among each function's arguments (PyTorch's "element 1 in argument 3")
_PAIR_OUT_POSITION = {"max": 3, "min": 3, "sort": 3, "topk": 5}
_PAIR_RESULTS = {name: _named(f"{name}_out") for name in _PAIR_OUT_POSITION}


def _reduces_a_dim(name: str, args, kwargs) -> bool:
    """Whether this call is the (values, indices) form: always for sort/topk; max/min with a dim
    (not max(x) or max(x, other))."""
    if name in ("sort", "topk"):
        return True
    return "dim" in kwargs or (len(args) >= 2 and not isinstance(args[1], Tensor))


def with_pair_out(fn, name: str):
    """`fn` (max, min, sort, topk) taking PyTorch's `out=`: a (values, indices) pair for the forms
    that return one, one tensor (the "cast" rule) for max/min of a whole tensor or of two."""
    @functools.wraps(fn)
    def call(*args, out=None, **kwargs):
        if out is None:
            return fn(*args, **kwargs)
        if not _reduces_a_dim(name, args, kwargs):
            if not isinstance(out, Tensor):
                raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            if needs_grad(args, kwargs):
                raise refuse_grad(name)
            return write_into(out, name, fn(*args, **kwargs), CAST)
        if not isinstance(out, (tuple, list)):
            raise TypeError(f"{name}(): argument 'out' must be tuple of Tensors, not {type(out).__name__}")
        if len(out) != 2:
            raise TypeError(f"expected tuple of 2 elements but got {len(out)}")
        for i, t in enumerate(out):
            if not isinstance(t, Tensor):
                raise TypeError(f"expected Tensor as element {i} in argument {_PAIR_OUT_POSITION[name]}, "
                                f"but got {type(t).__name__}")
        if needs_grad(args, kwargs):
            raise refuse_grad(name)
        values, indices = fn(*args, **kwargs)
        return _PAIR_RESULTS[name](write_into(out[0], name, values), write_into(out[1], name, indices))
    return call


def write_into(out: Tensor, name: str, result: Tensor, rule: str = EXACT) -> Tensor:
    """Write `result` into `out` (resizing it if its shape differs) and return `out`."""
    have, want = out.array.dtype, result.array.dtype
    if have != want:
        if rule == EXACT:
            raise RuntimeError(f"Expected out tensor to have dtype {cpp_type_name(want)}, but got "
                               f"{cpp_type_name(have)} instead")
        if not np.can_cast(want, have, "same_kind"):
            if rule == CONCAT:
                raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                                f"{scalar_type_name(have)}")
            raise RuntimeError(f"result type {scalar_type_name(want)} can't be cast to the desired output type "
                               f"{scalar_type_name(have)}")
    if out.array.shape != result.array.shape:
        if out.array.size:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{list(out.array.shape)}, which does not match the required output shape "
                          f"{list(result.array.shape)}. This behavior is deprecated, and in a future PyTorch release "
                          "outputs will not be resized unless they have zero elements. You can explicitly reuse an "
                          "out tensor t by resizing it, inplace, to zero elements with t.resize_(0).", UserWarning,
                          stacklevel=3)
        out.array = result.array.astype(have, copy=True)
    else:
        out.array[...] = result.array
    out._version += 1
    return out
