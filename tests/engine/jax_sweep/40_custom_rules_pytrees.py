# custom_jvp and custom_vjp over pytrees, as the JAX docs' custom derivative rules notebook writes them: a namedtuple
# argument, a dict-of-tuple output, their gradients through the rules (each output leaf's cotangent through them).
from collections import namedtuple
import jax, jax.numpy as jnp
from jax import custom_jvp, custom_vjp, grad
Point = namedtuple("Point", ["x", "y"])

@custom_jvp
def f(pt):
  x, y = pt.x, pt.y
  return {'a': x ** 2, 'b': (jnp.sin(x), jnp.cos(y))}

@f.defjvp
def f_jvp(primals, tangents):
  pt, = primals
  pt_dot, = tangents
  ans = f(pt)
  ans_dot = {'a': 2 * pt.x * pt_dot.x, 'b': (jnp.cos(pt.x) * pt_dot.x, -jnp.sin(pt.y) * pt_dot.y)}
  return ans, ans_dot

def fun(pt):
  dct = f(pt)
  return dct['a'] + dct['b'][0] * dct['b'][1]
pt = Point(1., 2.)
print(jax.tree.map(lambda v: jnp.round(v, 5), f(pt)))
print(grad(fun)(pt))
print(jax.jvp(fun, (pt,), (Point(1., 0.5),)))

@custom_vjp
def g(pt):
  x, y = pt.x, pt.y
  return {'a': x ** 2, 'b': (jnp.sin(x), jnp.cos(y))}

def g_fwd(pt):
  return g(pt), pt

def g_bwd(pt, ct):
  a_bar, (b0_bar, b1_bar) = ct['a'], ct['b']
  x_bar = 2 * pt.x * a_bar + jnp.cos(pt.x) * b0_bar
  y_bar = -jnp.sin(pt.y) * b1_bar
  return (Point(x_bar, y_bar),)
g.defvjp(g_fwd, g_bwd)

def gun(pt):
  dct = g(pt)
  return dct['a'] + dct['b'][0] * dct['b'][1]
print(grad(gun)(pt), jax.jit(grad(gun))(pt))
# inside a trace a rule's output is the value its forward computed there (not an input read with the first call's value)
print(jax.vmap(grad(gun))(Point(jnp.arange(3.), jnp.ones(3))))
jg = jax.jit(grad(gun))
print(jg(Point(1., 2.)), jg(Point(0.5, -1.)))
print(jax.vmap(grad(fun))(Point(jnp.arange(3.), jnp.ones(3))))
