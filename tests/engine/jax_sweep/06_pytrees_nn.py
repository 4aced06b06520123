# jax.tree_util on dicts, lists, tuples and None; jax.nn; jax.scipy.special; a small training loop in
# the JAX style (params as a pytree, a jitted update with tree_map).
import jax
import jax.numpy as jnp
from jax import tree_util

tree = {"a": [1, 2], "b": (3, None), "c": {"d": 4.0}}
print(tree_util.tree_leaves(tree))
print(tree_util.tree_structure(tree))
print(tree_util.tree_map(lambda v: v * 2, tree))
leaves, treedef = tree_util.tree_flatten([1, {"x": 2}, None])
print(leaves, treedef, tree_util.tree_unflatten(treedef, [5, 6]))
print(jax.tree.map(lambda a, b: a + b, {"u": 1, "v": 2}, {"u": 10, "v": 20}))
x = jnp.array([-2.0, 0.0, 3.0])
r = lambda a: jnp.round(a, 5)
print(jax.nn.relu(x), r(jax.nn.sigmoid(x)), r(jax.nn.softmax(x)), r(jax.nn.log_softmax(x)))
print(r(jax.nn.gelu(x)), r(jax.nn.softplus(x)), jax.nn.one_hot(jnp.array([0, 2]), 3))
print(r(jax.scipy.special.logsumexp(x)), r(jax.scipy.special.expit(x)), r(jax.scipy.special.erf(x)))

xs = jnp.linspace(-1.0, 1.0, 8).reshape(8, 1)
ys = 3.0 * xs - 0.5
params = {"w": jnp.zeros((1, 1)), "b": jnp.zeros((1,))}


def loss(params, x, y):
    return jnp.mean((x @ params["w"] + params["b"] - y) ** 2)


@jax.jit
def update(params, x, y):
    grads = jax.grad(loss)(params, x, y)
    return jax.tree_util.tree_map(lambda p, g: p - 0.5 * g, params, grads)


for i in range(20):
    params = update(params, xs, ys)
    if i % 5 == 4:
        print(i, round(float(loss(params, xs, ys)), 4))
print(jax.tree_util.tree_map(lambda p: jnp.round(p, 4), params))
