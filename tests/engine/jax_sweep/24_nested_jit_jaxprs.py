# Jitted functions called inside a trace print as JAX's `jit` equations (a function called twice:
# its jaxpr once, `let f = ... in`), make_jaxpr of a jitted function shows its jit equation, and a
# value nothing reads prints as `_`; jnp.where is its jitted `_where`, as in JAX.
import jax
import jax.numpy as jnp

x = jnp.array([1.0, 2.0, 3.0])


@jax.jit
def inner(v):
    return jnp.sin(v) * 2.0


@jax.jit
def norm2(v, w):
    return jnp.sum(v * w), v - w


def outer(v):
    s, d = norm2(v, inner(v))
    return inner(d) + s


print(jax.make_jaxpr(lambda v: inner(v) + 1.0)(x))
print(jax.make_jaxpr(inner)(x))
print(jax.make_jaxpr(jax.jit(lambda v: inner(inner(v))))(x))
print(jax.make_jaxpr(outer)(x))
print(jnp.round(jax.jit(outer)(x), 5))
print(jnp.round(jax.grad(lambda v: jnp.sum(outer(v)))(x), 5))
print(jax.make_jaxpr(lambda v: (jnp.cos(v), v * 2.0)[1])(x))
print(jax.make_jaxpr(lambda v: jnp.where(v > 1.0, v, 0.0))(x))
print(jax.make_jaxpr(lambda v: 1.05 * jnp.where(v > 0, v, 1.67 * jnp.exp(v) - 1.67))(x))
print(jax.jit(lambda v: jnp.where(v > 1.5, v, -v) * 2.0)(x))
