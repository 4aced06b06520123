# jaxprs of the JAX docs' jaxpr page and its neighbours: a jitted function called inside a trace takes what it closes
# over as inputs (func12); lax.cond on a concrete predicate is still a cond inside jit/make_jaxpr (its index a literal);
# jnp.where on a scalar predicate selects without broadcasting it; their values, gradients and batches as JAX's.
import jax, jax.numpy as jnp
from jax import lax, make_jaxpr, jit

def func12(arg):
  @jit
  def inner(x):
    return x + arg * jnp.ones(1)
  return arg + inner(arg - 2.)
print(make_jaxpr(func12)(1.))
print(jit(func12)(1.), jax.grad(lambda a: func12(a).sum())(1.))

x = jnp.arange(3.)
f = lambda x: lax.cond(True, lambda v: v * 2, lambda v: v - 1, x)
print(make_jaxpr(f)(x))
print(make_jaxpr(lambda x: lax.cond(0, lambda v: v * 2, lambda v: v - 1, x))(x))
print(make_jaxpr(lambda x: lax.cond(True, lambda: 1., lambda: x.sum()))(x))
print(jit(f)(x), jax.grad(lambda v: jit(f)(v).sum())(x), jit(jax.grad(lambda v: f(v).sum()))(x))
print(jax.vmap(f)(jnp.ones((2, 3))))

print(make_jaxpr(lambda a, b: jnp.where(a > 0, a, b))(1.0, x))
w = jnp.arange(6.).reshape(2, 3) - 2
g = lambda p, v: jnp.where(p > 0, v, 0.)
print(jax.vmap(g)(jnp.array([1., -1.]), w), jit(jax.vmap(g))(jnp.array([1., -1.]), w))
print(jit(g)(1., w[0]), jit(g)(-1., w[0]))
print(jax.vmap(jax.grad(lambda v: jnp.where(v.sum() > 0, v * v, v).sum()))(w))
