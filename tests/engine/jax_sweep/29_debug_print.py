# jax.debug.print: at once outside a trace; inside jit at every call (not while tracing), in the branch taken,
# under grad; its equation in a jaxpr as JAX 0.10 prints it (no result, its parameters), alone and in a nested jit.
import jax
import jax.numpy as jnp

@jax.jit
def f(x):
  jax.debug.print("jax.debug.print(x) -> {x}", x=x)
  y = jnp.sin(x)
  jax.debug.print("jax.debug.print(y) -> {y}", y=y)
  return y

result = f(2.)
print(result)
result = f(3.)
jax.debug.print("eager {} and {z}", jnp.arange(3), z=jnp.ones((2, 2)))
def g(x):
  jax.debug.print("in grad {}", x)
  return x ** 2
print(jax.grad(g)(3.0))
print(jax.jit(jax.grad(g))(4.0))
@jax.jit
def h(x):
  return jax.lax.cond(x > 0, lambda v: (jax.debug.print("positive {}", v), v)[1], lambda v: -v, x)
print(h(1.5), h(-1.0))
def f(x, y):
  jax.debug.print("x {} y {y}", x, y=y)
  jax.debug.print("no fields")
  return jnp.sin(x) + y
print(jax.make_jaxpr(f)(jnp.float32(1.0), jnp.ones(2)))
print(jax.make_jaxpr(jax.jit(f))(jnp.float32(1.0), jnp.ones(2)))
