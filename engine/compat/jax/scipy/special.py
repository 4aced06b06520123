"""`jax.scipy.special`: erf, expit, logit, logsumexp, xlogy, xlog1py, on the engine's ops."""
from __future__ import annotations

from engine.compat.jax import lax, nn
from engine.compat.jax import numpy as jnp
from engine.compat.jax._surface import unsupported_names

erf = lax.erf
expit = nn.sigmoid
logsumexp = nn.logsumexp
softmax = nn.softmax
log_softmax = nn.log_softmax


def erfc(x):
    return jnp.subtract(1.0, lax.erf(x))


def logit(x):
    return jnp.log(jnp.divide(x, jnp.subtract(1.0, x)))


def xlogy(x, y):
    return jnp.where(jnp.equal(x, 0), 0.0, jnp.multiply(x, jnp.log(y)))


def xlog1py(x, y):
    return jnp.where(jnp.equal(x, 0), 0.0, jnp.multiply(x, jnp.log1p(y)))


__getattr__ = unsupported_names("jax.scipy.special", globals())
