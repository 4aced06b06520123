# jax_enable_x64: float64 and int64 defaults for the rest of the program; JAX's error texts.
import jax
import jax.numpy as jnp

print(repr(jnp.arange(3) * 2.5))
jax.config.update("jax_enable_x64", True)
x = jnp.array([1.0, 2.0, 3.0])
print(repr(x), repr(jnp.arange(3)), repr(jnp.asarray(1.5)))
print(repr(jax.grad(lambda v: jnp.sum(v ** 3))(x)))
print(repr(jnp.linspace(0.0, 1.0, 5)), jnp.argmax(x).dtype)
print(jax.make_jaxpr(lambda v: jnp.argmax(v * 2.0))(x))
try:
    jax.grad(lambda v: v)(jnp.arange(3))
except TypeError as e:
    print("TypeError:", e)
try:
    jax.vmap(lambda a, b: a + b)(jnp.ones(3), jnp.ones(4))
except ValueError as e:
    print("ValueError:", str(e).splitlines()[0])
try:
    jax.numpy.ones(3).reshape(4)
except TypeError as e:
    print("TypeError:", e)
