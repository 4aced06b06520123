# lax.cond / switch / fori_loop / while_loop / scan: both branches traced, loops in jit,
# differentiation where JAX allows it.
import jax
import jax.numpy as jnp
from jax import lax

print(lax.cond(True, lambda a: a + 1.0, lambda a: a - 1.0, 1.0))
print(lax.switch(2, [lambda a: a, lambda a: a * 2.0, lambda a: a * 3.0], 2.0))
print(lax.fori_loop(0, 5, lambda i, v: v + i, 0))
print(lax.while_loop(lambda v: v < 10, lambda v: v * 2, 1))
carry, ys = lax.scan(lambda c, x: (c + x, c * x), 0.0, jnp.arange(4.0))
print(carry, ys)


@jax.jit
def relu_ish(x):
    return lax.cond(x > 0, lambda a: a * 2.0, lambda a: -a, x)


print(relu_ish(3.0), relu_ish(-3.0))
print(jax.jit(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))(1.0))
print(jax.grad(lambda x: lax.cond(x > 0, lambda a: a * a, lambda a: -a, x))(3.0))
print(jax.grad(lambda x: lax.fori_loop(0, 3, lambda i, v: v * x, 1.0))(2.0))
print(jax.grad(lambda x: lax.scan(lambda c, _: (c * x, None), 1.0, None, length=4)[0])(2.0))
try:
    jax.grad(lambda x: lax.while_loop(lambda v: v < 10.0, lambda v: v * 2.0, x))(1.0)
except ValueError as e:
    print("ValueError:", e)


def both(x):
    def yes(a):
        print("tracing the true branch")
        return a + 1.0

    def no(a):
        print("tracing the false branch")
        return a - 1.0
    return lax.cond(x > 0, yes, no, x)


print(both(1.0))
