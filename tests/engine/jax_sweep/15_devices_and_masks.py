# An array's devices and sharding print as JAX's (the one CPU device), and a boolean mask that is traced
# (x[x > 1] inside jit) is JAX's NonConcreteBooleanIndexError; outside jit the mask selects.
import jax, jax.numpy as jnp
x = jnp.arange(3.0)
print(x.devices(), x.sharding, jax.devices())
try:
    jax.jit(lambda v: v[v > 1.0])(x)
except IndexError as e:
    print(type(e).__name__, e)
print(x[x > 1.0])
