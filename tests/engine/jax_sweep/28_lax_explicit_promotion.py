# lax's binary primitives take no implicit promotion (not even of a Python scalar), name the jnp function that
# does, refuse bool where JAX does, and divide integers towards zero; a namedtuple's PyTreeDef as JAX 0.10 prints it.
import jax.numpy as jnp
from jax import lax
import numpy as np
import jax
from collections import namedtuple
cases = [(1, 1.0), (jnp.float32(1), 1.0), (jnp.float32(1), 1), (jnp.int32(1), 1.0), (1.0, jnp.float32(2)), (jnp.float32(1), jnp.float16(1)),
         (jnp.arange(3), 2), (jnp.arange(3.0), jnp.arange(3)), (2, 3), (2.0, 3.0), (np.float64(1), jnp.float32(1)), (True, 1), (jnp.float16(1), 1.0), (jnp.arange(3), 2.5)]
for a, b in cases:
    for name in ("add", "mul", "sub", "div", "max", "min", "rem"):
        try:
            r = getattr(lax, name)(a, b)
            print(name, repr(r))
        except Exception as e:
            print(name, type(e).__name__, str(e).split("\n")[0])
print(lax.div(jnp.array([-7, 7, -7, 6]), jnp.array([2, -2, -2, 3])), lax.rem(jnp.array([-7, 7]), jnp.array([2, -2])))
P = namedtuple("Params", ["a", "b"])
print(jax.tree_util.tree_structure(P(1, 2.0)))
print(jax.tree_util.tree_structure([P(1, (2, 3)), {"k": P(None, 1)}]))
print(jax.tree_util.tree_structure(P(P(1, 2), 3)))
