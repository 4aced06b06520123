# A fori_loop's carry keeps init_val's type (a Python 0 stays a weak int32), a jitted function that
# returns a static argument or a literal returns a 0-d array, and a traced size is not a shape.
import jax
import jax.numpy as jnp
from jax import lax

print(repr(lax.fori_loop(0, 10, lambda i, x: x + i, 0)))
print(repr(lax.fori_loop(0, 10, lambda i, x: x + 1, 0)))
print(repr(lax.fori_loop(0, 3, lambda i, c: (c[0] * 2.0, c[1] + i), (1.0, jnp.int32(0)))))
print(repr(jax.jit(lambda x: x, static_argnums=0)(10)))
print(repr(jax.jit(lambda x: (x, 3.0))(1.0)))
print(repr(jax.jit(lambda x: jnp.float32(2.0))(1.0)))
try:
    jax.jit(lambda n, v: jnp.ones((n,)) * v)(10, 4)
except TypeError as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(jax.jit(lambda n, v: jnp.ones((n,)) * v, static_argnums=0)(3, 4))
