# vmap with batched integer indices (one gather over the batch) and keyword arguments (mapped over
# their axis 0, as JAX maps them).
import jax
import jax.numpy as jnp

table = jnp.arange(12.0).reshape(4, 3)
rows = jnp.array([3, 0, 2])
print(jax.vmap(lambda i: table[i])(rows))
print(jax.vmap(lambda i: table[:, i])(jnp.array([2, 1])))
batch = jnp.arange(24.0).reshape(2, 4, 3)
print(jax.vmap(lambda x, i: x[i, 1] * 2.0)(batch, jnp.array([1, 3])))
print(jax.vmap(lambda x, i: x[:, i])(batch, jnp.array([0, 2])))
print(jax.grad(lambda t: jnp.sum(jax.vmap(lambda i: t[i] ** 2)(rows)))(table))


def affine(x, scale=1.0, shift=0.0):
    return x * scale + shift


print(jax.vmap(affine)(jnp.ones((3, 2)), scale=jnp.array([1.0, 2.0, 3.0])))
print(jax.vmap(affine, in_axes=(1,))(jnp.ones((2, 3)), shift=jnp.arange(6.0).reshape(3, 2)))
