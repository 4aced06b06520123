"""`jnp.linalg`: norm (vector and Frobenius) and cholesky, on the engine's ops."""
from __future__ import annotations

from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.numpy import _core as jnp
from engine.tensor import apply


def norm(x, ord=None, axis=None, keepdims=False):
    x = jnp.asarray(x)
    if ord in (None, 2, "fro") and (axis is None or isinstance(axis, int) or ord != 2):
        return jnp.sqrt(jnp.sum(jnp.square(jnp.abs(x)), axis=axis, keepdims=keepdims))
    if ord == 1:
        return jnp.sum(jnp.abs(x), axis=axis, keepdims=keepdims)
    if ord == jnp.inf:
        return jnp.max(jnp.abs(x), axis=axis, keepdims=keepdims)
    raise NotImplementedError(f"jnp.linalg.norm with ord={ord!r} is not supported by Dagscope")


def cholesky(a, *, upper: bool = False, symmetrize_input: bool = True):
    """The lower Cholesky factor of a (..., n, n) (upper: its transpose), NaNs where a is not positive
    definite, as JAX's. The factor is of (a + aᵀ)/2, as JAX symmetrizes (its jaxpr: transpose, add, div);
    without symmetrize_input, of the matrix a's lower triangle stands for, which is all LAPACK reads."""
    a = jnp._float(jnp.asarray(a))
    if a.ndim < 2 or a.shape[-1] != a.shape[-2]:
        raise ValueError(f"Argument to cholesky must have shape [..., n, n], got {a.shape}")
    if symmetrize_input:
        a = jnp.divide(jnp.add(a, jnp.swapaxes(a, -1, -2)), 2.0)
    else:
        a = jnp.add(jnp.tril(a), jnp.swapaxes(jnp.tril(a, -1), -1, -2))
    factor = jnp._out(apply("cholesky", a))
    return jnp.swapaxes(factor, -1, -2) if upper else factor


__getattr__ = unsupported_names("jax.numpy.linalg", globals())
