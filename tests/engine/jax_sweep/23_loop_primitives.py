# lax.scan and fori_loop (static bounds) as scan primitives in the jaxpr, while_loop as while, their
# values under jit, gradients through scan and fori_loop (eager, jit of grad, grad of jit), a traced
# cond differentiated inside jit (its backward a cond too), and while_loop refused by reverse mode.
import jax
import jax.numpy as jnp
from jax import lax

x = jnp.array([0.5, 1.5, -1.0])
xs = jnp.arange(6.0).reshape(3, 2) / 4.0


def fori(v):
    return lax.fori_loop(0, 3, lambda i, c: jnp.sin(c) * v + i, v)


def cumulative(v):
    def step(carry, row):
        new = carry * jnp.tanh(row) + row
        return new, jnp.sum(new)
    return lax.scan(step, jnp.ones(2, jnp.float32), v)


def backwards(v):
    return lax.scan(lambda c, r: (c + r, c * r), jnp.float32(0.0), v, reverse=True)


def doubling(v):
    return lax.while_loop(lambda c: jnp.sum(c) < 20.0, lambda c: c * 2.0, v)


def branch(v):
    return lax.cond(jnp.sum(v) > 0, lambda a: jnp.sin(a) * a, lambda a: jnp.cos(a) - a, v)


print(jax.make_jaxpr(fori)(x))
print(jax.make_jaxpr(cumulative)(xs))
print(jax.make_jaxpr(backwards)(x))
print(jax.make_jaxpr(doubling)(x))
print(jnp.round(fori(x), 5), jnp.round(jax.jit(fori)(x), 5))
print(jax.tree_util.tree_map(lambda a: jnp.round(a, 5), jax.jit(cumulative)(xs)))
print(jax.jit(backwards)(x))
print(jax.jit(doubling)(x))


def loss_scan(v):
    carry, ys = cumulative(v)
    return jnp.sum(carry) + jnp.sum(ys ** 2)


def loss_fori(v):
    return jnp.sum(fori(v) ** 2)


for loss in (loss_scan, loss_fori):
    arg = xs if loss is loss_scan else x
    print(jnp.round(jax.grad(loss)(arg), 3))
    print(jnp.round(jax.jit(jax.grad(loss))(arg), 3))
    print(jnp.round(jax.grad(jax.jit(loss))(arg), 3))
print(jnp.round(jax.jit(jax.grad(lambda v: backwards(v)[0] + jnp.sum(backwards(v)[1])))(x), 4))
# one trace each: the second call runs the same graph, whose cond takes the other branch
branch_grad = jax.jit(jax.grad(lambda a: jnp.sum(branch(a))))
branch_hessian = jax.jit(jax.hessian(lambda a: jnp.sum(branch(a))))
branch_tangent = jax.jit(lambda a: jax.jvp(branch, (a,), (jnp.ones(3),))[1])
for v in (x, -x):
    print(jnp.round(branch_grad(v), 5))
    print(jnp.round(branch_hessian(v), 5))
    print(jnp.round(branch_tangent(v), 5))
try:
    jax.grad(lambda v: jnp.sum(doubling(v)))(x)
except ValueError as err:
    print("ValueError:", str(err).splitlines()[0])
try:
    jax.jit(jax.grad(lambda v: jnp.sum(doubling(v))))(x)
except ValueError as err:
    print("ValueError:", str(err).splitlines()[0])
