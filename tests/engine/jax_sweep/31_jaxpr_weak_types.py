# Weak types in jaxprs: a weakly typed tracer (a Python scalar passed in, a loop carry started from one, fori_loop's
# counter) meeting a strong array gets JAX's convert_element_type to the strong type, even of the same dtype;
# a Python scalar literal does not. while_loop's closed-over values are its consts (the JAX docs' jaxpr page, func10/11).
import numpy as np
import jax, jax.numpy as jnp
from jax import lax
x = jnp.arange(3.)
print(jax.make_jaxpr(lambda x: x * 2)(x))
print(jax.make_jaxpr(lambda x: x + 1.5)(jnp.arange(3)))
print(jax.make_jaxpr(lambda a, b: a * b)(2.0, x))
print(jax.make_jaxpr(lambda a, b: a * b)(2, x))
print(jax.make_jaxpr(lambda a, b: a * b)(2, jnp.arange(3)))
print(jax.make_jaxpr(lambda a, b: jnp.maximum(a, b))(1.0, x))
print(jax.make_jaxpr(lambda a, b: a + b)(jnp.float16(1), 1.0))
print(jax.make_jaxpr(lambda a, b: a + b)(jnp.arange(3), 1.0))
print(jax.make_jaxpr(lambda x: lax.scan(lambda c, v: (c + v * 2, c), 0., x))(x))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, v: v + i, 0.))(x))
print(jax.make_jaxpr(lambda x: lax.fori_loop(0, 3, lambda i, v: v + i, x))(x))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < 3, lambda c: c + x.sum(), 0.))(x))
print(jax.make_jaxpr(lambda x: lax.while_loop(lambda c: c < x[0], lambda c: c * 2., 1.))(x))
print(repr(jax.jit(lambda x: lax.while_loop(lambda c: c < 30, lambda c: c + x.sum(), 0.))(x)))

def func10(arg, n):
  ones = jnp.ones(arg.shape)  # A constant.
  return lax.fori_loop(0, n, lambda i, carry: carry + ones * 3. + arg, arg + ones)
print(jax.make_jaxpr(func10)(np.ones(16), 5))
print(repr(jax.jit(func10)(np.ones(4), 5)))

def func11(arr, extra):
  ones = jnp.ones(arr.shape)  #  A constant
  def body(carry, aelems):
    ae1, ae2 = aelems
    return (carry + ae1 * ae2 + extra, carry)
  return lax.scan(body, 0., (arr, ones))
print(jax.make_jaxpr(func11)(np.ones(16), 5.))
print(jax.jit(func11)(np.arange(4.), 5.))
