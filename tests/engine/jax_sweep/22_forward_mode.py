# Forward mode: jax.jvp (its own transformation, one JVP rule per primitive), jacfwd, hessian
# (jacfwd of jacrev), jvp through jit, cond, fori_loop, scan and while_loop (forward mode goes
# through a while loop, reverse mode does not), linearize, and the jaxpr of a jvp.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.array([0.5, 1.0, 2.0])
t = jnp.array([1.0, -1.0, 0.5])


def f(v):
    return jnp.tanh(v) * v ** 2 + jnp.exp(-v) / (1.0 + v)


y, dy = jax.jvp(f, (x,), (t,))
print(jnp.round(y, 5), jnp.round(dy, 5))
print(jnp.round(jax.jacfwd(f)(x), 5))
print(jnp.round(jax.jacfwd(lambda v: jnp.sum(jnp.sin(v) * v))(x), 5))
print(jnp.round(jax.hessian(lambda v: jnp.sum(jnp.sin(v) * jnp.flip(v)))(x), 5))
print(jnp.round(jax.jacfwd(jax.jacfwd(lambda v: jnp.log1p(v) * v))(x), 5))

w = jnp.array([[1.0, -2.0], [0.5, 3.0], [-1.0, 0.25]])
print(jnp.round(jax.jvp(lambda v: jax.nn.softmax(v @ w), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: jax.nn.logsumexp(jnp.stack([v, v * v])), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: jnp.max(v * t) + jnp.var(v), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: jnp.linalg.norm(v) * jnp.prod(v), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: v.at[1].set(v[0] * 3.0) + jnp.where(v > 1.0, v, -v), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(jax.jit(lambda v: jnp.cos(v) @ w), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: lax.cond(v[0] > 0, jnp.sin, jnp.cos, v), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: lax.fori_loop(0, 3, lambda i, c: c * v + 1.0, v), (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: lax.scan(lambda c, r: (c * r, c + r), 1.0, v)[1], (x,), (t,))[1], 5))
print(jnp.round(jax.jvp(lambda v: lax.while_loop(lambda c: c[0] < 10.0, lambda c: c * 2.0, v), (x,), (t,))[1], 5))
out, f_lin = jax.linearize(jnp.sin, x)
print(jnp.round(f_lin(t), 5))


def two(a, b):
    return {"s": jnp.sum(a * b), "p": a - b}


print(jax.jvp(two, (x, 2.0 * x), (t, t)))
print(jax.make_jaxpr(lambda v, u: jax.jvp(jnp.sin, (v,), (u,)))(x, t))
print(jax.make_jaxpr(lambda v, u: jax.jvp(lambda a: jnp.sum(jnp.exp(a) * a), (v,), (u,)))(x, t))
try:
    jax.jvp(f, (x,), (jnp.ones(2),))
except ValueError as err:
    print("ValueError:", err)
