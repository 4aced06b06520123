# Outside jit too, lax.scan and lax.fori_loop (static bounds) trace their body once and run its graph, as JAX does:
# its Python side effects happen once (the sharp-bits page's next(iterator) adds 0 each step); a weak carry the body
# makes a float starts as one; a closure over the array also passed in stays that array (jit's too); gradients flow.
# A jaxpr's binders are filled onto lines as JAX's printer fills them.
import jax, jax.numpy as jnp
from jax import lax
array = jnp.arange(10)
print(lax.fori_loop(0, 10, lambda i, x: x + array[i], 0))
iterator = iter(range(10))
print(lax.fori_loop(0, 10, lambda i, x: x + next(iterator), 0))
print(repr(lax.fori_loop(0, 3, lambda i, x: x + 0.5, 0)), repr(lax.fori_loop(0, 3, lambda i, x: x * 2, 1)))
def body(c, x):
    print("tracing body")
    return c + x, c * x
print(lax.scan(body, 0., jnp.arange(4.)))
print(jax.grad(lambda a: lax.scan(lambda c, x: (c * a + x, c), 1., jnp.arange(3.))[0])(2.))
print(jax.grad(lambda a: lax.fori_loop(0, 4, lambda i, c: jnp.sin(c) * a, a))(0.7))
print(lax.scan(lambda c, _: (c + 1, None), 0, None, length=3))
print(lax.scan(lambda c, x: ({'a': c['a'] + x}, [x, x * 2]), {'a': 1.}, jnp.arange(3.), reverse=True))
print(jax.vmap(lambda v: lax.fori_loop(0, 3, lambda i, c: c * v, 1.))(jnp.arange(3.)))
print(lax.map(lambda x: x ** 2, jnp.arange(4.)))
X = jnp.array([1., 2., 3.])
f = jax.jit(lambda a: a * X)
print(f(X), f(jnp.ones(3)))
g = jax.jit(lambda a: lax.cond(a[0] > 0, lambda v: v * X, lambda v: v, a))
print(g(X), g(jnp.ones(3)))
print(lax.fori_loop(0, 3, lambda i, v: v * X, X))
for s in [(3, 4), (300, 4), (3,), (), (3, 4, 5, 6)]:
    print(jax.make_jaxpr(lambda *a: sum(a))(*[jnp.ones(s)] * 16))
print(jax.make_jaxpr(lambda: jnp.ones(3))())
