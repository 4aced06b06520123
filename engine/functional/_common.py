"""What every family of engine.functional shares: dim checks, PyTorch's dtype words, named results."""
from __future__ import annotations

from collections import namedtuple

from engine.ops.dtypes import cpp_type_name, scalar_type_name
from engine.tensor import Tensor, _dim, as_tensor_like  # noqa: F401  (_dim: the families' dim check, Tensor's too)


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


def _dims(dim):
    if dim is None:
        return None
    return tuple(int(d) for d in dim) if isinstance(dim, (list, tuple)) else int(dim)


def _as_tensor(x) -> Tensor:
    if isinstance(x, Tensor):
        return x
    return as_tensor_like(x, ())


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
