# jax.grad and friends: argnums, has_aux, value_and_grad, higher derivatives, pytrees of parameters.
import jax
import jax.numpy as jnp


def f(x):
    return jnp.sum(jnp.tanh(x) ** 2)


x = jnp.array([0.5, -1.0, 2.0])
print(jnp.round(jax.grad(f)(x), 5))
print(repr(jax.grad(lambda x: x ** 2)(3.0)))
print(jax.grad(jax.grad(lambda x: x ** 3))(2.0))
print(jax.grad(jax.grad(jax.grad(jnp.sin)))(1.0))
print(jax.grad(lambda a, b: a * jnp.sin(b), argnums=(0, 1))(2.0, 3.0))
print(jax.grad(lambda a, b: a * jnp.sin(b), argnums=1)(2.0, 3.0))
value, g = jax.value_and_grad(lambda w: jnp.sum((w * 3.0 - 1.0) ** 2))(jnp.array([1.0, 2.0]))
print(value, g)
g, aux = jax.grad(lambda x: (jnp.sum(x ** 2), x * 10), has_aux=True)(jnp.array([1.0, 2.0]))
print(g, aux)
params = {"w": jnp.array([[1.0, 2.0], [3.0, 4.0]]), "b": jnp.array([0.5, -0.5])}


def loss(params, x, y):
    pred = x @ params["w"] + params["b"]
    return jnp.mean((pred - y) ** 2)


grads = jax.grad(loss)(params, jnp.array([[1.0, 0.0], [0.0, 1.0]]), jnp.array([[1.0, 1.0], [1.0, 1.0]]))
print(grads)
print(jax.grad(lambda x: jnp.sum(jax.lax.stop_gradient(x) * x))(jnp.arange(3.0)))
try:
    jax.grad(lambda x: x)(jnp.ones(3))
except TypeError as e:
    print("TypeError:", e)
try:
    jax.grad(lambda x: x * 2)(3)
except TypeError as e:
    print("TypeError:", e)
