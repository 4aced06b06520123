"""Builders: what a vjp rule's `F` is. `F.mul(a, b)` applies the registered op `mul` to whatever
values the builder works on — numpy arrays here, Tensors in `engine.tensor`, IR values in
`engine.autodiff` — so one rule serves eager backward, double backward and graph autodiff."""
from __future__ import annotations

import numpy as np

from engine.ops.dtypes import promote_with_scalar
from engine.ops.registry import OPS


class Builder:
    """Base: `F.<op>(*inputs, **attrs)` calls `self.apply(op_name, inputs, attrs)`."""

    def apply(self, name: str, inputs: tuple, attrs: dict):
        raise NotImplementedError

    def __getattr__(self, name: str):
        if name not in OPS:
            raise AttributeError(f"no op named {name!r}")

        apply = self.apply

        def call(*inputs, **attrs):
            return apply(name, inputs, attrs)
        call.__name__ = name
        self.__dict__[name] = call        # cached: later `F.<name>` lookups skip __getattr__
        return call


def scalar_dtype(inputs: tuple, scalar) -> np.dtype:
    """The dtype a Python scalar takes beside these inputs (weak, as PyTorch treats it)."""
    for x in inputs:
        if hasattr(x, "dtype") and not isinstance(x, (int, float, bool)):
            return promote_with_scalar(x.dtype, scalar)
    return np.dtype(np.float32) if isinstance(scalar, float) else np.dtype(np.int64)


_SCALAR_DTYPES: dict = {}      # (array dtype, scalar type) -> the scalar's dtype: the rule is per type


def _scalar_array(inputs: tuple, scalar) -> np.ndarray:
    """A Python scalar as a 0-d array of the dtype it takes beside these inputs (see scalar_dtype)."""
    kind = type(scalar)
    if kind is float or kind is int or kind is bool:
        for x in inputs:
            if type(x) is np.ndarray:
                key = (x.dtype, kind)
                dtype = _SCALAR_DTYPES.get(key)
                if dtype is None:
                    dtype = _SCALAR_DTYPES[key] = promote_with_scalar(x.dtype, scalar)
                return np.asarray(scalar, dtype=dtype)
            if hasattr(x, "dtype"):           # another kind of array comes first: scalar_dtype decides
                break
    return np.asarray(scalar, dtype=scalar_dtype(inputs, scalar))


class NumpyBuilder(Builder):
    """Runs rules straight on numpy arrays: the fast path of eager backward."""

    def apply(self, name, inputs, attrs):
        op = OPS[name]
        if len(inputs) == 2 and not attrs:          # binary ops of one dtype: the bare ufunc
            a, b = inputs
            ufunc = op.extra.get("same_dtype_ufunc")
            if ufunc is not None and type(a) is np.ndarray and type(b) is np.ndarray and a.dtype is b.dtype:
                out = ufunc(a, b)
                return out if type(out) is np.ndarray else np.asarray(out)
        for x in inputs:
            if type(x) is not np.ndarray:
                inputs = tuple(x if isinstance(x, np.ndarray) else _scalar_array(inputs, x) for x in inputs)
                break
        out = op.forward(*inputs, **attrs)
        return out if type(out) is np.ndarray else np.asarray(out)

    def __getattr__(self, name: str):
        # One closure per op with the op's forward bound: `F.transpose(g, ...)` in a vjp rule then
        # costs a call and a type check, not a registry lookup and the generic dispatch of `apply`.
        if name not in OPS or type(self) is not NumpyBuilder:   # (a subclass may override apply)
            return super().__getattr__(name)
        forward = OPS[name].forward
        ufunc = OPS[name].extra.get("same_dtype_ufunc")
        ndarray, general = np.ndarray, self.apply

        if ufunc is not None:
            def call(*inputs, **attrs):
                if len(inputs) == 2 and not attrs:
                    a, b = inputs
                    if type(a) is ndarray:
                        if type(b) is not ndarray and (type(b) is float or type(b) is int):
                            b = _scalar_array(inputs, b)         # x > 0.0 and the like
                        if type(b) is ndarray and a.dtype is b.dtype:
                            out = ufunc(a, b)
                            return out if type(out) is ndarray else np.asarray(out)
                return general(name, inputs, attrs)
        else:
            def call(*inputs, **attrs):
                for x in inputs:
                    if type(x) is not ndarray:
                        inputs = tuple(x if isinstance(x, ndarray) else _scalar_array(inputs, x) for x in inputs)
                        break
                out = forward(*inputs, **attrs)
                return out if type(out) is ndarray else np.asarray(out)
        call.__name__ = name
        self.__dict__[name] = call
        return call


NUMPY = NumpyBuilder()
