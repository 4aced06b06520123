# vmap (in_axes, out_axes, nested; the same as a Python loop), jacfwd, jacrev, hessian, jvp, vjp,
# custom_jvp and custom_vjp.
import jax
import jax.numpy as jnp

mat = jnp.arange(12.0).reshape(3, 4)
print(jax.vmap(lambda v: jnp.dot(v, v))(mat))
print(jnp.stack([jnp.dot(v, v) for v in mat]))
print(jax.vmap(lambda a, b: a * b, in_axes=(0, None))(mat, jnp.arange(4.0)))
print(jax.vmap(lambda v: v * 2, in_axes=1, out_axes=1)(mat))
print(jax.vmap(jax.vmap(lambda a: a + 1.0))(jnp.ones((2, 2))))
print(jnp.round(jax.vmap(jax.grad(lambda x: jnp.sin(x) * x))(jnp.arange(3.0)), 5))


def h(x):
    return jnp.sin(x) * x


print(jnp.round(jax.jacrev(h)(jnp.arange(3.0)), 5))
print(jnp.round(jax.jacfwd(h)(jnp.arange(3.0)), 5))
print(jax.jacrev(lambda x: x @ x)(jnp.arange(3.0)))
print(jax.hessian(lambda x: jnp.sum(x ** 3))(jnp.arange(3.0)))
primal, tangent = jax.jvp(h, (jnp.arange(3.0),), (jnp.ones(3),))
print(jnp.round(primal, 5), jnp.round(tangent, 5))
y, pullback = jax.vjp(h, jnp.arange(3.0))
print(jnp.round(y, 5), jnp.round(pullback(jnp.ones(3))[0], 5))


@jax.custom_vjp
def clip_gradient(x):
    return x


def clip_fwd(x):
    return x, None


def clip_bwd(res, g):
    return (jnp.clip(g, -1.0, 1.0),)


clip_gradient.defvjp(clip_fwd, clip_bwd)
print(jax.grad(lambda x: clip_gradient(x) * 5.0)(2.0))


@jax.custom_jvp
def log1pexp(x):
    return jnp.log(1.0 + jnp.exp(x))


@log1pexp.defjvp
def log1pexp_jvp(primals, tangents):
    x, = primals
    x_dot, = tangents
    return log1pexp(x), x_dot * (1.0 - 1.0 / (1.0 + jnp.exp(x)))


print(log1pexp(3.0), jax.grad(log1pexp)(3.0), jax.grad(log1pexp)(100.0))
