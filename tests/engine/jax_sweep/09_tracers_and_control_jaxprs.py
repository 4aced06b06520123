# What a value prints as inside jit and grad (JAX's tracers), updates at traced indices, and the
# jaxprs of lax.cond (both branches, the values they close over first) and lax.while_loop.
import jax
import jax.numpy as jnp
from jax import lax


def show(x):
    print(x)
    print(f"as an f-string: {x}")
    return jnp.sum(x)


jax.grad(show)(jnp.ones(2))
jax.jit(show)(jnp.ones(2))
jax.make_jaxpr(show)(1.0)
print(jax.jit(lambda x, i: x.at[i].set(0.0))(jnp.ones(3), 1))
print(jax.jit(lambda x, i: x.at[i].add(5.0))(jnp.ones(3), -1))
print(jax.jit(lambda x, i: x.at[i].mul(5.0))(jnp.ones((2, 3)), 1))
print(jax.grad(lambda x, i: jnp.sum(x.at[i].mul(x[0]) ** 2))(jnp.arange(1.0, 4.0), 2))
print(jax.jit(lambda x, i: x[i] * 2)(jnp.arange(3.0), 2))
print(jax.make_jaxpr(lambda x: lax.cond(x > 0, lambda a: a * 2, lambda a: -a, x))(1.0))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))(1.0))
print(jax.make_jaxpr(lambda x, y: lax.cond(x > 0, lambda a: a * y + jnp.sin(a) * 3.0 - jnp.cos(a),
                                           lambda a: -a, x))(1.0, 2.0))
