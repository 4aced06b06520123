"""`torch.linalg`: vector norms, and the matrix norms that are sums and maxima of |A| (no SVD: 'nuc',
2 and -2 fail as unsupported)."""
from __future__ import annotations

import math

from engine import functional as _functional
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.errors import UnsupportedError as _UnsupportedError
from engine.functional import _dim
from engine.tensor import Tensor as _Tensor


def _check_input(fn: str, x) -> None:
    if not isinstance(x, _Tensor):
        raise TypeError(f"linalg_{fn}(): argument 'input' (position 1) must be Tensor, not {type(x).__name__}")


def vector_norm(x, ord=2, dim=None, keepdim: bool = False, *, dtype=None):
    """(sum |x|^ord)^(1/ord) over `dim` (every element by default); ord inf/-inf: max/min |x|; ord 0:
    the count of nonzeros. Gradient 0 where the norm is 0 (LinalgVectorNormBackward0)."""
    _check_input("vector_norm", x)
    if isinstance(ord, (str, bool)) or not isinstance(ord, (int, float)):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' must be Number, not {type(ord).__name__}")
    return _functional.norm(x, float(ord), dim, keepdim, dtype)


def _matrix_dims(x, dim) -> tuple[int, int]:
    dims = tuple(_dim(int(d), x.ndim) for d in dim)
    if len(dims) != 2 or dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dims[0]}, {dims[-1]})"
                           if len(dims) == 2 else "linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    return dims


def matrix_norm(x, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None):
    """'fro': the vector 2-norm of the matrix; 1/-1: max/min column sum of |A|; inf/-inf: max/min row sum."""
    _check_input("matrix_norm", x)
    if x.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    rows, cols = _matrix_dims(x, dim)
    if dtype is not None:
        x = x.to(dtype)
    if ord == "fro":
        return _functional.norm(x, 2.0, (rows, cols), keepdim)
    if ord in (1, -1, math.inf, -math.inf):
        # PyTorch: abs(A).sum(dim=summed, keepdim).amax/amin(dim=other, keepdim): AmaxBackward0 on top
        summed, other = (rows, cols) if ord in (1, -1) else (cols, rows)
        sums = x.abs().sum(summed, keepdim=keepdim)
        if not keepdim and summed < other:
            other -= 1
        return (sums.amax if ord > 0 else sums.amin)(other, keepdim=keepdim)
    if ord in ("nuc", 2, -2):
        raise _UnsupportedError(f"torch.linalg.matrix_norm(ord={ord!r}) is not supported by Dagscope (it needs "
                                "singular values); ord='fro', 1, -1, inf and -inf are")
    raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")


def norm(x, ord=None, dim=None, keepdim: bool = False, *, dtype=None):
    """A vector norm for 1-D input or one dim, a matrix norm for 2-D input or two dims; with neither
    ord nor dim, the 2-norm of every element (LinalgVectorNormBackward0)."""
    _check_input("norm", x)
    if dim is not None:
        dims = (dim,) if isinstance(dim, int) else tuple(dim)
        if len(dims) == 1:
            return vector_norm(x, 2 if ord is None else ord, dims[0], keepdim, dtype=dtype)
        return matrix_norm(x, "fro" if ord is None else ord, dims, keepdim, dtype=dtype)
    if ord is None:
        return vector_norm(x, 2, None, keepdim, dtype=dtype)
    if x.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {x.ndim}D.")
    if x.ndim == 1:
        return vector_norm(x, ord, None, keepdim, dtype=dtype)
    return matrix_norm(x, ord, (-2, -1), keepdim, dtype=dtype)


__getattr__ = _unsupported_getattr("torch.linalg", globals())
