# When a custom rule's Python runs, as the JAX docs' custom derivative rules notebook prints it: under grad a
# custom_jvp's rule runs once (f itself only where the rule calls it), once per call whatever the number of
# outputs, once per level under grad of grad; a custom_vjp runs fwd, then bwd in the backward pass, and under
# jvp runs fwd before it raises JAX's error.
import jax
import jax.numpy as jnp
from jax import custom_jvp, custom_vjp, grad, jit, jvp, vmap

@custom_jvp
def f(x):
  print('called f!')  # a harmless side-effect
  return jnp.sin(x)

@f.defjvp
def f_jvp(primals, tangents):
  print('called f_jvp!')  # a harmless side-effect
  x, = primals
  t, = tangents
  return f(x), jnp.cos(x) * t

print(f(3.))
print(jnp.round(vmap(f)(jnp.arange(3.)), 5))
print(jit(f)(3.))
y, y_dot = jvp(f, (3.,), (1.,))
print(y_dot)
print(grad(f)(3.))
print(grad(grad(f))(3.))
print(jax.value_and_grad(f)(3.))
print(jit(grad(f))(3.))
print(jnp.round(vmap(grad(f))(jnp.arange(3.)), 5))
print(jax.jacrev(f)(jnp.arange(2.)))
print(jax.jacrev(jax.jacrev(f))(1.))

@custom_jvp
def two(x):
  print('two called')
  return x * 2., jnp.sin(x)

@two.defjvp
def two_jvp(primals, tangents):
  print('two_jvp called')
  x, = primals
  t, = tangents
  return (x * 2., jnp.sin(x)), (2. * t, jnp.cos(x) * t)
print(grad(lambda x: two(x)[0] + two(x)[1])(1.))
print(grad(lambda x: sum(two(x)))(1.))
print(grad(lambda x: two(x)[1])(1.))

@custom_vjp
def g(x):
  print('called g!')
  return jnp.sin(x)

def g_fwd(x):
  print('called g_fwd!')
  return g(x), jnp.cos(x)

def g_bwd(cos_x, y_bar):
  print('called g_bwd!')
  return (cos_x * y_bar,)
g.defvjp(g_fwd, g_bwd)

print(g(3.))
print(grad(g)(3.))
y, g_vjp = jax.vjp(g, 3.)
print(y)
print(g_vjp(1.))
try:
  jvp(g, (3.,), (1.,))
except TypeError as e:
  print(e)
