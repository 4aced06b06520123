# An output that is a differentiated input itself has gradient one (it was zero): grad, vjp, jacrev of the
# identity, on arrays and on pytrees (the JAX docs' custom pytrees page's jax.jacobian(lambda x: x)(tree)), under
# jit, vmap and grad of grad, and one output of several.
import jax
import jax.numpy as jnp
from jax.tree_util import register_pytree_node

print(jax.grad(lambda x: x)(2.))
print(jax.jit(jax.grad(lambda x: x))(2.))
print(jax.grad(jax.grad(lambda x: x))(2.))
print(jax.vmap(jax.grad(lambda x: x))(jnp.arange(3.)))
print(jax.value_and_grad(lambda x, y: x, argnums=(0, 1))(jnp.float32(2.), 3.))
print(jax.grad(lambda p: p['w'])({'w': 1., 'b': 2.}))
print(jax.vjp(lambda x: x, jnp.arange(2.))[1](jnp.ones(2)))
print(jax.jacrev(lambda x: x)(jnp.arange(3.)))
print(jax.jacrev(lambda x: (x, x * 2))(jnp.arange(2.)))
print(jax.jacobian(lambda x: x)({'a': jnp.arange(2.)}))

class Box:
  def __init__(self, a):
    self.a = a
register_pytree_node(Box, lambda t: ((t.a,), None), lambda _, c: Box(*c))
print(jax.jacobian(lambda x: x)(Box(jnp.arange(3.))).a.a)
print(jax.grad(lambda b: jnp.sum(b.a))(Box(jnp.arange(3.))).a)
