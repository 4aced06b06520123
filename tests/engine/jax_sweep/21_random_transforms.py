# jax.random under transformations: a key as an argument of a jitted function (new key, new numbers), random values
# as constants for grad, vmap over split keys; randint, bernoulli, permutation (ints, arrays, independent), choice.
import jax, jax.numpy as jnp
from jax import random
@jax.jit
def f(k, x):
    return x * random.normal(k, (3,)) + random.uniform(k, (3,))
print(repr(f(random.PRNGKey(0), 2.0)))
print(repr(f(random.PRNGKey(1), 2.0)))
print(repr(jax.jit(lambda k: random.split(k))(random.PRNGKey(3))))
print(repr(jax.jit(lambda k: random.uniform(random.fold_in(k, 3), (2,)))(random.key(3))))
print(jax.grad(lambda x: (x * random.normal(random.PRNGKey(0), (3,))).sum())(1.0))
print(repr(jax.vmap(lambda k: random.normal(k, (2,)))(random.split(random.PRNGKey(0), 3))))
print(repr(jax.vmap(lambda k: random.uniform(k))(random.split(random.key(0), 3))))
print(repr(random.randint(random.PRNGKey(0), (6,), 0, 10)), repr(random.randint(random.PRNGKey(1), (2,3), -5, 5)))
print(repr(random.bernoulli(random.PRNGKey(0), 0.3, (6,))), repr(random.bernoulli(random.PRNGKey(0), jnp.array([0.1, 0.9]))))
print(repr(random.permutation(random.PRNGKey(0), 10)))
print(repr(random.permutation(random.PRNGKey(0), jnp.arange(6.).reshape(3, 2))))
print(repr(random.permutation(random.PRNGKey(5), jnp.arange(12).reshape(3, 4), axis=1, independent=True)))
print(repr(random.choice(random.PRNGKey(0), 5, (3,))), repr(random.choice(random.PRNGKey(0), jnp.arange(10.), (4,), replace=False)))
print(repr(random.uniform(random.PRNGKey(0), (3,), minval=jnp.array([0., 1., 2.]), maxval=3.)))
