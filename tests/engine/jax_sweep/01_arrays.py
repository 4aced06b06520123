# jnp arrays: JAX's repr, float32 by default, weak types for Python scalars, immutability and .at[].
import jax.numpy as jnp

x = jnp.array([1.0, 2.0, 3.0])
print(repr(x))
print(x)
print(repr(jnp.arange(4)), repr(jnp.asarray(2.0)), repr(jnp.zeros((2, 3))))
print(repr(jnp.arange(3) * 2.5), repr(jnp.arange(3) + 1), repr(x * 2), repr(jnp.float32(2) * 3))
print(repr(jnp.linspace(0, 1, 15)))
print(x.dtype, x.shape, x.ndim, x.size, jnp.ones((2, 2), dtype=jnp.int32).dtype)
try:
    x[0] = 10.0
except TypeError as e:
    print("TypeError:", e)
y = jnp.arange(5.0)
print(y.at[2].set(10.0))
print(y.at[1:3].add(1.0))
print(y.at[0].mul(3.0), y.at[4].min(-1.0), y.at[jnp.array([0, 1])].max(2.0))
m = jnp.arange(6.0).reshape(2, 3)
print(m.T, m[1], m[:, 1:], m[0, -1])
print(jnp.sum(m), jnp.sum(m, axis=0), jnp.mean(m), jnp.var(m), jnp.std(m, axis=1))
print(jnp.max(m, axis=1), jnp.min(m), jnp.argmax(m), jnp.argmax(m, axis=0), jnp.prod(m + 1))
print(jnp.dot(m, jnp.ones(3)), m @ m.T, jnp.einsum("ij,kj->ik", m, m))
print(jnp.where(m > 2, m, -1.0))
print(jnp.concatenate([m, m], axis=1).shape, jnp.stack([m, m]).shape, jnp.transpose(m).shape)
print(jnp.round(jnp.exp(1.0), 4), jnp.log(jnp.array([1.0, 2.0])), jnp.sqrt(jnp.arange(4)))
print(jnp.clip(jnp.arange(5), 1, 3), jnp.abs(jnp.array([-1.5, 2.0])), jnp.maximum(m, 2.5))
print(jnp.cumsum(jnp.arange(4)), jnp.flip(jnp.arange(3)), jnp.eye(2), jnp.outer(jnp.arange(2.0), jnp.arange(3.0)))
print(jnp.allclose(x, x + 1e-9), jnp.isnan(jnp.array([1.0, jnp.nan])), jnp.linalg.norm(jnp.array([3.0, 4.0])))
