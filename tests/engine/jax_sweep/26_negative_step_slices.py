# x[::-1] and other backward slices of jnp arrays (numpy's meaning, kept by JAX; a PyTorch tensor refuses
# them): values, a gradient through one, the rev equation JAX traces, and under jit; a weak scalar stays weak.
import jax, jax.numpy as jnp
x = jnp.arange(12.0).reshape(3, 4)
print(x[::-1])
print(x[:, ::-2])
print(x[..., 2:0:-1])
print(x[1, ::-1], x[::-1, None, 1:3])
print(x[-1:-4:-1, -2])
print(jax.grad(lambda v: (v[::-1] * jnp.arange(4.0)).sum())(jnp.ones(4)))
print(jax.make_jaxpr(lambda v: v[::-1])(jnp.ones(3)))
print(jax.jit(lambda v: v[::-2])(jnp.arange(5)))
print(jnp.arange(3)[::-1] * 2.0, repr(jnp.asarray(2.0)[None][::-1]))
