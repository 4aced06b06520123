"""Matrix factorizations: the Cholesky factor (jnp.linalg.cholesky) and the triangular solve its gradient
is made of (two solves with the factor), each differentiable again (a Hessian goes through them). The
JAX facade is their one caller: PyTorch's torch.linalg.cholesky reads a's lower triangle and raises
where JAX's gives NaNs (this factor is JAX's); their gradients are PyTorch's, checked against it."""
from __future__ import annotations

import numpy as np

from engine.ops.linalg import _matching_dtype
from engine.ops.registry import NN, OpDef, Spec, register


def _last_two_swapped(x):
    return np.swapaxes(x, -1, -2)


def _cholesky_forward(a):
    """The lower factor L of (a + aᵀ)/2 = L Lᵀ, as JAX's cholesky (symmetrize_input) computes it: a matrix
    that is not positive definite gives NaNs on and below its diagonal, not an error (one matrix of a
    batch: only its own)."""
    sym = (a + _last_two_swapped(a)) / a.dtype.type(2)
    try:
        return np.linalg.cholesky(sym)
    except np.linalg.LinAlgError:
        out = np.empty_like(sym)
        for i in np.ndindex(*sym.shape[:-2]):
            try:
                out[i] = np.linalg.cholesky(sym[i])
            except np.linalg.LinAlgError:
                out[i] = np.tril(np.full(sym.shape[-2:], np.nan, sym.dtype))
        return out


def _square_infer(a):
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"cholesky takes square matrices (..., n, n), got shape {tuple(a.shape)}")
    return Spec(tuple(a.shape), np.dtype(a.dtype))


def _cholesky_vjp(F, g, a, out):
    """grad_a = L⁻ᵀ M L⁻¹ with M = Φ(Lᵀ grad) made symmetric (Φ: the lower triangle, its diagonal halved):
    PyTorch's cholesky_backward, two triangular solves. Symmetric, as a function of (a + aᵀ)/2 is."""
    g = _matching_dtype(F, g, out)
    lt_g = F.tril(F.matmul(F.transpose(out, dim0=-2, dim1=-1), g))
    m = F.mul(F.add(lt_g, F.transpose(F.tril(lt_g, diagonal=-1), dim0=-2, dim1=-1)), 0.5)
    y = F.triangular_solve(out, m, transpose=True)                                        # L⁻ᵀ M
    return (F.transpose(F.triangular_solve(out, F.transpose(y, dim0=-2, dim1=-1), transpose=True),
                        dim0=-2, dim1=-1),)                                                # (L⁻ᵀ Yᵀ)ᵀ = Y L⁻¹


register(OpDef(
    "cholesky", NN, _cholesky_forward, _square_infer, _cholesky_vjp, "LinalgCholeskyExBackward0",
    "L lower triangular with L Lᵀ = (a + aᵀ)/2",
    "grad_a = L⁻ᵀ Φ(Lᵀ grad) L⁻¹ made symmetric (Φ: lower triangle, diagonal halved)", saves=("out",)))


def _triangular_solve_forward(a, b, transpose=False):
    """x with tril(a) x = b (tril(a)ᵀ x = b when `transpose`); a zero on a's diagonal gives infs or NaNs,
    as a triangular solve does, not an error."""
    low = np.tril(a)
    low = _last_two_swapped(low) if transpose else low
    try:
        return np.linalg.solve(low, b).astype(b.dtype, copy=False)
    except np.linalg.LinAlgError:
        return np.full(np.broadcast_shapes(a.shape[:-2], b.shape[:-2]) + b.shape[-2:], np.nan, b.dtype)


def _triangular_solve_infer(a, b, transpose=False):
    if len(a.shape) < 2 or a.shape[-1] != a.shape[-2] or len(b.shape) < 2 or b.shape[-2] != a.shape[-1]:
        raise ValueError(f"triangular_solve takes a (..., n, n) and b (..., n, k), got {tuple(a.shape)} and "
                         f"{tuple(b.shape)}")
    if np.dtype(a.dtype) != np.dtype(b.dtype):
        raise TypeError(f"triangular_solve takes a and b of one dtype, got {np.dtype(a.dtype)} and {np.dtype(b.dtype)}")
    return Spec(tuple(np.broadcast_shapes(tuple(a.shape[:-2]), tuple(b.shape[:-2]))) + tuple(b.shape[-2:]),
                np.dtype(b.dtype))


def _triangular_solve_vjp(F, g, a, b, out, transpose=False):
    """grad_b = the solve with the other orientation of a; grad_a = -grad_b xᵀ (x grad_bᵀ when transposed),
    its lower triangle only (the solve reads no other element of a)."""
    g = _matching_dtype(F, g, out)
    gb = F.triangular_solve(a, g, transpose=not transpose)
    outer = F.matmul(out, F.transpose(gb, dim0=-2, dim1=-1)) if transpose else \
        F.matmul(gb, F.transpose(out, dim0=-2, dim1=-1))
    return F.neg(F.tril(outer)), gb


register(OpDef(
    "triangular_solve", NN, _triangular_solve_forward, _triangular_solve_infer, _triangular_solve_vjp,
    "LinalgSolveTriangularBackward0", "x with tril(a) x = b (tril(a)ᵀ x = b when transpose)",
    "grad_b = tril(a)⁻ᵀ grad (⁻¹ when transpose); grad_a = -tril(grad_b xᵀ) (-tril(x grad_bᵀ) when transpose)",
    attrs=("transpose",), saves=(0, "out")))
