"""`jax.nn`: activations, softmax and one_hot, on jnp and the engine's ops (JAX's formulas)."""
from __future__ import annotations

import math

import numpy as np

from engine.compat.jax import lax
from engine.compat.jax import numpy as jnp
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import Array, default_float, default_int, to_array
from engine.compat.jax.numpy import linalg  # noqa: F401  (jnp's package fully loaded before this module)


def relu(x):
    return jnp.maximum(x, 0)


def relu6(x):
    return jnp.minimum(jnp.maximum(x, 0), 6.0)


def sigmoid(x):
    return lax.logistic(x)


def log_sigmoid(x):
    return jnp.negative(softplus(jnp.negative(x)))


def softplus(x):
    return jnp.logaddexp(x, 0.0)


def silu(x):
    return jnp.multiply(x, sigmoid(x))


swish = silu


def gelu(x, approximate=True):
    x = to_array(x)
    if approximate:
        c = math.sqrt(2 / math.pi)
        inner = jnp.multiply(c, jnp.add(x, jnp.multiply(0.044715, jnp.power(x, 3))))
        return jnp.multiply(jnp.multiply(x, 0.5), jnp.add(1.0, jnp.tanh(inner)))
    return jnp.multiply(jnp.multiply(x, 0.5), jnp.add(1.0, lax.erf(jnp.divide(x, math.sqrt(2)))))


def elu(x, alpha=1.0):
    return jnp.where(jnp.greater(x, 0), x, jnp.multiply(alpha, jnp.expm1(jnp.minimum(x, 0))))


def leaky_relu(x, negative_slope=0.01):
    return jnp.where(jnp.greater_equal(x, 0), x, jnp.multiply(negative_slope, x))


def hard_tanh(x):
    return jnp.clip(x, -1.0, 1.0)


def tanh(x):
    return jnp.tanh(x)


def logsumexp(a, axis=None, b=None, keepdims=False, return_sign=False):
    a = to_array(a)
    m = lax.stop_gradient(jnp.max(a, axis=axis, keepdims=True))
    s = jnp.sum(jnp.exp(jnp.subtract(a, m)) if b is None else jnp.multiply(b, jnp.exp(jnp.subtract(a, m))),
                axis=axis, keepdims=True)
    out = jnp.add(jnp.log(s), m)
    if not keepdims:
        out = jnp.squeeze(out, axis=axis) if axis is not None else jnp.reshape(out, ())
    return out


def softmax(x, axis=-1, where=None):
    x = to_array(x)
    unnormalized = jnp.exp(jnp.subtract(x, lax.stop_gradient(jnp.max(x, axis, keepdims=True))))
    return jnp.divide(unnormalized, jnp.sum(unnormalized, axis, keepdims=True))


def log_softmax(x, axis=-1, where=None):
    x = to_array(x)
    shifted = jnp.subtract(x, lax.stop_gradient(jnp.max(x, axis, keepdims=True)))
    return jnp.subtract(shifted, jnp.log(jnp.sum(jnp.exp(shifted), axis, keepdims=True)))


def standardize(x, axis=-1, mean=None, variance=None, epsilon=1e-5):
    x = to_array(x)
    mean = jnp.mean(x, axis, keepdims=True) if mean is None else mean
    variance = jnp.var(x, axis, keepdims=True) if variance is None else variance
    return jnp.multiply(jnp.subtract(x, mean), jnp.rsqrt(jnp.add(variance, epsilon)))


def one_hot(x, num_classes, dtype=None, axis=-1):
    x = to_array(x)
    classes = Array(np.arange(int(num_classes), dtype=default_int()))
    out = jnp.equal(jnp.expand_dims(x, -1), classes)
    out = jnp.astype(out, dtype or default_float())
    return jnp.moveaxis(out, -1, axis) if axis != -1 else out


__getattr__ = unsupported_names("jax.nn", globals())
