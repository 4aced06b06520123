# vmap is a transformation of the traced program: the jaxpr of a vmapped function is one batched
# equation per op (a batched dot is one dot_general, a reduction's axis moves past the batch axis,
# in_axes=1 stays on axis 1), and vmap of a jitted function batches its equations.
import jax
import jax.numpy as jnp

mat = jnp.arange(12.0).reshape(3, 4)
w = jnp.linspace(-1.0, 1.0, 8).reshape(2, 4)
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.dot(v, v)))(mat))
print(jax.make_jaxpr(jax.vmap(lambda a, b: a * b, in_axes=(0, None)))(mat, jnp.arange(4.0)))
print(jax.make_jaxpr(jax.vmap(lambda v: v * 2, in_axes=1, out_axes=1))(mat))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.sin(v).sum()))(mat))
layer = lambda v, w: jnp.tanh(w @ v + 1.0)
print(jax.make_jaxpr(jax.vmap(layer, in_axes=(0, None)))(mat, w))
print(jnp.round(jax.vmap(layer, in_axes=(0, None))(mat, w), 3))
print(jax.make_jaxpr(jax.vmap(lambda v: v.reshape(2, 2).T.mean(axis=0)))(mat))
print(jax.jit(jax.vmap(lambda v: jnp.exp(v) / 2))(mat))
print(jax.make_jaxpr(jax.vmap(lambda m, v: m @ v))(mat.reshape(3, 2, 2), mat[:, :2]))
print(jax.vmap(lambda m, v: m @ v)(mat.reshape(3, 2, 2), mat[:, :2]))
print(jax.make_jaxpr(jax.vmap(lambda v: jnp.max(v) - v, in_axes=1))(mat))
print(jax.vmap(jax.vmap(lambda a, b: a * b + 1.0), in_axes=(0, None))(mat.reshape(3, 2, 2), mat[0, :2]))
