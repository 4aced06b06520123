# jnp.convolve / jnp.correlate in every mode (either input the longer) and lax.conv_general_dilated in its default
# layout: explicit, VALID, SAME and SAME_LOWER padding, strides, kernel dilation, feature groups, a gradient,
# and the same-dtype rule (key-concepts' example is the first two prints). Integer-valued floats: exact sums,
# whatever order XLA adds them in.
import jax, jax.numpy as jnp
from jax import lax
x = jnp.array([1, 2, 1])
y = jnp.ones(10)
print(repr(jnp.convolve(x, y)))
a = jnp.array([1.0, 2.0, 3.0, 4.0, 5.0]); v = jnp.array([0.5, -1.0, 2.0])
for mode in ("full", "same", "valid"):
    print(mode, jnp.convolve(a, v, mode=mode), jnp.correlate(a, v, mode=mode), jnp.correlate(v, a, mode=mode))
print(jnp.convolve(jnp.arange(4), jnp.arange(2)))
result = lax.conv_general_dilated(x.reshape(1, 1, 3).astype(float), y.reshape(1, 1, 10), window_strides=(1,),
                                  padding=[(len(y) - 1, len(y) - 1)])
print(repr(result[0, 0]))
img = jnp.arange(2 * 3 * 6 * 5, dtype=jnp.float32).reshape(2, 3, 6, 5) - 40
k = jnp.arange(4 * 3 * 3 * 2, dtype=jnp.float32).reshape(4, 3, 3, 2) % 5 - 2
for pad in ("VALID", "SAME", "SAME_LOWER", [(1, 0), (2, 1)]):
    out = lax.conv_general_dilated(img, k, (2, 1), pad)
    print(pad, out.shape, out[1, 2])
print(lax.conv_general_dilated(img, k[:3, :1], (1, 1), "SAME", rhs_dilation=(2, 1), feature_group_count=3)[0, 2])
print(jax.grad(lambda w: jnp.convolve(a, w).sum())(v))
try:
    lax.conv_general_dilated(img, k.astype(jnp.int32), (1, 1), "VALID")
except TypeError as e:
    print("TypeError", e)
