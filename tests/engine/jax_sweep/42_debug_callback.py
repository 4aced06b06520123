# jax.debug.callback (the JAX docs' compiled prints page): the program's function called with jax.Arrays (a
# non-array leaf passed as it is) outside a trace, under jit (each call), vmap (once per example, in order),
# grad (the forward only), in a scan's steps and a cond's branch; the two-call form; its jaxpr equation; and
# jax.debug.print under vmap, jit(vmap) and lax.map (ordered), which printed nothing before.
import jax
import jax.numpy as jnp
from jax import lax

def show(x, tag="v"):
  print(tag, type(x).__name__, x.dtype, x)

def f(x):
  jax.debug.callback(show, x, tag="x")
  y = x * 3.
  jax.debug.callback(show, y)
  return y

print(f(2.))
jf = jax.jit(f)
print(jf(2.), jf(jnp.float32(4.)))
print(jax.vmap(f)(jnp.arange(3.)))
print(jax.jit(jax.vmap(f))(jnp.arange(2.)))
print(jax.grad(f)(1.))
print(jax.make_jaxpr(f)(1.))

def g(x):
  jax.debug.callback(lambda a, b, label: print(label, a, b), {'p': x, 'q': 3}, [x * 2], label="pair")
  return x
jax.jit(g)(jnp.ones(2))
jax.debug.callback(ordered=True)(show, 5.)
jax.jit(lambda x: jax.debug.callback(ordered=True)(show, x * 2, tag="two-call"))(jnp.arange(2))

def step(c, x):
  jax.debug.callback(lambda c, x: print("step", c, x), c, x)
  return c + x, c * x
print(lax.scan(step, 0., jnp.array([1., 2., 3.])))
print(jax.jit(lambda xs: lax.scan(step, 0., xs))(jnp.array([4., 5.])))
print(lax.cond(True, lambda x: (jax.debug.callback(show, x, tag="true"), x)[1],
               lambda x: (jax.debug.callback(show, x, tag="false"), -x)[1], 1.5))

def h(x):
  jax.debug.print("x: {}", x, ordered=True)
  y = x * 2.
  jax.debug.print("y: {}", y, ordered=True)
  return y
jax.vmap(h)(jnp.arange(3.))
jax.jit(jax.vmap(h))(jnp.arange(2.))
lax.map(h, jnp.arange(3.))
try:
  jax.debug.callback(3, 1.)
except TypeError as e:
  print(e)
