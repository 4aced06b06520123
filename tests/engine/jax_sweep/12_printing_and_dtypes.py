# Printing and dtype rules: bool/int/float/empty arrays, division by a Python number (XLA multiplies by its
# reciprocal), integer sums staying int32, weak types through arithmetic, item/tolist/format.
import jax, jax.numpy as jnp
import numpy as np
print(repr(jnp.array([True, False])), repr(jnp.array([[-1, 2], [3, -4]])), repr(jnp.arange(0, 1, 0.25)))
print(repr(jnp.array([1, 2.5])), repr(jnp.ones(3).astype(float)), repr(jnp.array([1, 2], dtype=float)))
print(repr(jnp.zeros((0,))), repr(jnp.ones((2, 0))), repr(jnp.array(3)), repr(jnp.array(True)))
print(repr(jnp.arange(12.0).reshape(3, 4) / 7))
print(repr(jnp.array([1e-8, 1e8])), repr(jnp.array([np.nan, np.inf, -np.inf])))
print(jnp.float32(1.5), jnp.int32(3) + 2, repr(jnp.int32(3) + 2), repr(jnp.float32(1.5) * 2))
print(repr(jnp.array(np.arange(3, dtype=np.int64))), repr(jnp.array(np.float64(2.5))))
print(repr(jnp.uint8(3) + 1), repr(jnp.array([1, 2], dtype=jnp.int8) + 300 if False else jnp.array([1, 2], dtype=jnp.int8) + 3))
print(repr(jnp.arange(3) / 2), repr(jnp.arange(3) // 2), repr(jnp.arange(3) ** 2), repr(2 ** jnp.arange(3)))
print(repr(jnp.sum(jnp.array([True, True]))), repr(jnp.mean(jnp.arange(4))), repr(jnp.arange(4) * True))
x = jnp.arange(6).reshape(2, 3)
print(x.shape, x.T.shape, len(x), [r.tolist() for r in x], x.tolist(), float(x[0, 1]), int(x[1, 2]), x.item(3))
print(f"{jnp.float32(3.14159):.2f}", jnp.array(2.5).item(), type(jnp.array(2.5).item()).__name__)
print(repr(jnp.linspace(0, 1, 5, dtype=jnp.float16)))
