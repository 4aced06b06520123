# The JAX docs' sharp bits, continued: jax.jit refuses an argument that is neither an array nor static with JAX's
# TypeError (a method's self), and a traced value the function let escape (a global assigned in it) prints as the
# tracer it was.
import jax, jax.numpy as jnp
from functools import partial
class CustomClass:
  def __init__(self, x: jnp.ndarray, mul: bool):
    self.x = x
    self.mul = mul
  @jax.jit
  def calc(self, y):
    if self.mul:
      return self.x * y
    return y
try:
  c = CustomClass(2, True)
  print(c.calc(3))
except TypeError as e:
  print(type(e).__name__, e)
def f(x, s): return x
for bad in ('abc', [1., 'a'], {'k': object}):
  try: jax.jit(f)(1., bad)
  except TypeError as e: print(type(e).__name__, str(e).splitlines()[0])
print(jax.jit(f)(1., None), jax.jit(f, static_argnums=1)(1., 'abc'), jax.jit(f, static_argnames='s')(1., s='x'))
print(jax.jit(lambda d: d['a'] * 2)({'a': 1., 'b': None}))
from jax import jit
g = 0.
def impure_saves_global(x):
  global g
  g = x
  return x
print("First call: ", jit(impure_saves_global)(4.))
print("Saved global: ", g)
h = []
jit(lambda v: h.append(v * 2) or v)(jnp.ones(3))
print(h[0], repr(h[0]))
print(jax.make_jaxpr(impure_saves_global)(jnp.ones(2)), g)
X = jnp.ones(2)
print(jit(lambda a: a + X)(X), X)
# astype to its own dtype: a strong copy of a weak array (convert_element_type), the array itself stays weak
x = jnp.asarray(1.0)
y = x.astype(jnp.float32)
print(repr(x), repr(y), y is x)
print(jax.make_jaxpr(lambda a: a.astype(jnp.float32) * jnp.ones(2))(1.0))
print(jax.make_jaxpr(lambda a: a.astype(jnp.float32))(jnp.ones(2)))
