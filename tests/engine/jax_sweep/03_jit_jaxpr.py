# jax.jit traces once per signature (a print runs while tracing only); make_jaxpr prints JAX's jaxpr.
import jax
import jax.numpy as jnp


@jax.jit
def step(x, scale):
    print("tracing step for", x.shape, x.dtype)
    return jnp.sum(x ** 2) * scale


print(step(jnp.arange(3.0), 2.0))
print(step(jnp.arange(3.0), 5.0))
print(step(jnp.ones(4), 2.0))
print(step(jnp.arange(3), 2.0))


def scaled(x, k):
    return x * k


g = jax.jit(scaled, static_argnums=1)
print(g(jnp.arange(3.0), 2), g(jnp.arange(3.0), 3))
print(jax.make_jaxpr(lambda x: jnp.sin(x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jnp.sum(jnp.sin(x) * 2.0))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x, w: jnp.tanh(x @ w + 1.0).mean())(jnp.ones((2, 3)), jnp.ones((3, 4))))
print(jax.make_jaxpr(lambda x, b: x + b)(jnp.ones((2, 3)), jnp.ones(3)))
print(jax.make_jaxpr(lambda x: (jnp.max(x, axis=1), jnp.argmax(x, axis=0), x.astype(jnp.int32)))(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda x: (jnp.concatenate([x, x]), x ** 2, x ** 0.5, 1 / x, -x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jax.nn.sigmoid(x) + jnp.sqrt(x))(jnp.ones(3)))
print(jax.make_jaxpr(lambda x, y: x * y)(1.0, 2))
print(jax.make_jaxpr(lambda x: jnp.sum(x, axis=0, keepdims=True))(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda x: x.T @ x)(jnp.ones((2, 3))))
print(jax.make_jaxpr(lambda x: x.reshape(3, 1).T[0] + x[1])(jnp.ones(3)))
print(jax.make_jaxpr(lambda x: jnp.maximum(x, 0.0) - jnp.minimum(x, 1.0))(jnp.ones(3)))


def chain(x):
    for _ in range(30):
        x = x + 1.0
    return x


print(jax.make_jaxpr(chain)(1.0))


@jax.jit
def branchy(x):
    if x > 0:
        return x
    return -x


try:
    branchy(1.0)
except jax.errors.TracerBoolConversionError as e:
    print("TracerBoolConversionError:", str(e).splitlines()[0])
print(jnp.round(jax.jit(jax.grad(lambda x: jnp.sum(jnp.sin(x))))(jnp.arange(3.0)), 5))
print(jnp.round(jax.grad(jax.jit(lambda x: jnp.sum(jnp.sin(x) * x)))(jnp.arange(3.0)), 5))
