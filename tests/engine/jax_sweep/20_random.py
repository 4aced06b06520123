# From JAX's "pseudorandom numbers" docs: keys are data (PRNGKey and typed keys), split and fold_in, and the
# samplers, bit for bit with JAX's threefry2x32 (jax_threefry_partitionable on, JAX's default).
import jax
import jax.numpy as jnp
from jax import random

key = random.PRNGKey(42)
print(repr(key))
print(repr(random.PRNGKey(0)), repr(random.PRNGKey(-1)), repr(random.PRNGKey(2**32 + 5)))
k1, k2 = random.split(key)
print(repr(k1), repr(k2))
print(repr(random.split(key, 4)))
print(repr(random.split(key, (2, 3))))
print(repr(random.fold_in(key, 7)), repr(random.split(key, 8)[7]))
print(repr(random.uniform(key, (3,))))
print(repr(random.uniform(k1, (2, 3), minval=-2.0, maxval=5.0)))
print(repr(random.normal(key, (5,))))
print(repr(random.normal(k2)))
print(repr(random.normal(k1, (3, 4))))
x = random.normal(random.PRNGKey(1), (10000,))
print(x.mean(), x.std(), x.min(), x.max())
print(repr(random.bits(key, (4,))))

tkey = random.key(42)
print(repr(tkey))
print(tkey.shape, tkey.dtype)
keys = random.split(tkey, 3)
print(repr(keys))
print(repr(random.key_data(keys[1])))
print(repr(random.uniform(keys[0], (2,))))
print(repr(random.wrap_key_data(jnp.array([0, 42], dtype=jnp.uint32))))

try:
    random.normal(random.split(key, 3), (2,))
except ValueError as e:
    print("ValueError", e)
