# The JAX docs' "sharp bits" (Common_Gotchas_in_JAX): jit's traces are kept per function (a new jax.jit of the same
# function reuses them: its print runs once, a global it read stays stale); `+=` on an array makes a new one; an
# out-of-bounds index is clamped on reads (.at[].get(mode='fill') reads fill_value); jnp functions refuse lists;
# jnp.array of traced or differentiated values keeps them (JAX's convert/broadcast_in_dim/concatenate);
# float64 is float32 without jax_enable_x64.
import jax, jax.numpy as jnp
from jax import jit, random

def impure_print_side_effect(x):
  print("Executing function")
  return x
print("First call: ", jit(impure_print_side_effect)(4.))
print("Second call: ", jit(impure_print_side_effect)(5.))
print("Third call, different type: ", jit(impure_print_side_effect)(jnp.array([5.])))
g = 0.
def impure_uses_globals(x):
  return x + g
print("First call: ", jit(impure_uses_globals)(4.))
g = 10.
print("Second call: ", jit(impure_uses_globals)(5.))
print("Third call, different type: ", jit(impure_uses_globals)(jnp.array([4.])))

def pure_uses_internal_state(x):
  state = dict(even=0, odd=0)
  for i in range(10):
    state['even' if i % 2 == 0 else 'odd'] += x
  return state['even'] + state['odd']
print(jit(pure_uses_internal_state)(5.))
x = jnp.ones(3)
y = x
x += 1
x *= 3
print(x, y)
z = jnp.arange(4)
z -= 1
print(repr(z))

print(repr(jnp.arange(10)[11]), repr(jnp.arange(10)[-11]), repr(jnp.arange(10.0).at[11].get()))
print(repr(jnp.arange(10.0).at[11].get(mode='fill', fill_value=jnp.nan)), repr(jnp.arange(10).at[11].get(mode='fill')))
print(repr(jnp.arange(10.).at[jnp.array([1, 10, -11, -10])].get(mode='fill', fill_value=-1.)))
print(repr(jnp.arange(10)[jnp.array([0, 12, -12, 3])]), repr(jax.jit(lambda i: jnp.arange(10)[i])(15)))
m = jnp.arange(12).reshape(3, 4)
print(repr(m[5, 1]), repr(m[1, 9]), repr(m[..., 7]))
try:
  jnp.sum([1, 2, 3])
except TypeError as e:
  print(type(e).__name__, e)

def permissive_sum(x):
  return jnp.sum(jnp.array(x))
f = jax.jit(lambda a, b: jnp.array([a, b]) * 2)
print(f(1., 2.), f(3., 4.))
print(jax.grad(lambda a: jnp.array([a, a * 2]).sum())(1.))
print(jax.make_jaxpr(permissive_sum)(list(range(4))))
print(jax.make_jaxpr(lambda a, b: jnp.asarray([[a, 1.], [b, 2.]]))(1., 2.))
print(random.uniform(random.key(0), (3,), dtype=jnp.float64).dtype, jnp.zeros(3, dtype=jnp.float64).dtype)
