# From JAX's control-flow and "thinking in JAX" docs: fori_loop with a traced bound, static arguments, Python
# loops over a traced bound refused as JAX refuses them, cond with several operands and outputs, switch in jit.
import jax
import jax.numpy as jnp
from jax import lax

@jax.jit
def cumulative(x, n):
    return lax.fori_loop(0, n, lambda i, v: v + x * i, 0.0)
print(cumulative(2.0, 4))

def f(x, n):
    y = 0.
    for i in range(n):
        y = y + x[i]
    return y
print(jax.jit(f, static_argnames='n')(jnp.array([2., 3., 4.]), 2))
print(jax.jit(f, static_argnums=1)(jnp.array([2., 3., 4.]), 3))
try:
    jax.jit(f)(jnp.array([2., 3., 4.]), 2)
except Exception as e:
    print(type(e).__name__, str(e).splitlines()[0])
print(lax.cond(False, lambda x, y: x + y, lambda x, y: x - y, 5.0, 3.0))
def g(x):
    return lax.cond(x > 1, lambda x: (x, x * 2), lambda x: (-x, x), x)
print(jax.jit(g)(3.0), g(0.5))
try:
    lax.cond(True, lambda x: x, lambda x: x * 1, jnp.ones(2).astype(jnp.int32) )
    lax.cond(True, lambda x: x, lambda x: x * 1.5, jnp.ones(2).astype(jnp.int32))
except TypeError as e:
    print("TypeError", str(e).splitlines()[0], str(e).splitlines()[5])
print(jax.grad(lambda x: lax.switch(1, [jnp.sin, jnp.cos], x))(0.5))
print(jax.jit(lambda i, x: lax.switch(i, [lambda a: a + 1., lambda a: a * 10., lambda a: -a], x))(5, 2.0))
