# From JAX's autodiff cookbook and quickstart: gradients of a logistic model, Hessian-vector products, jacfwd/jacrev,
# per-example gradients, static arguments, pytrees of parameters, indexing and reductions.
from functools import partial
import numpy as np
import jax
import jax.numpy as jnp
from jax import grad, jit, vmap, jacfwd, jacrev, jvp

# autodiff cookbook
def sigmoid(x):
    return 0.5 * (jnp.tanh(x / 2) + 1)

def predict(W, b, inputs):
    return sigmoid(jnp.dot(inputs, W) + b)

inputs = jnp.array([[0.52, 1.12,  0.77],
                   [0.88, -1.08, 0.15],
                   [0.52, 0.06, -1.30],
                   [0.74, -2.49, 1.39]])
targets = jnp.array([True, True, False, True])

def loss(W, b):
    preds = predict(W, b, inputs)
    label_probs = preds * targets + (1 - preds) * (1 - targets)
    return -jnp.sum(jnp.log(label_probs))

W = jnp.array([0.1, -0.2, 0.3])
b = 0.5
W_grad = grad(loss, argnums=0)(W, b)
print('W_grad', jnp.round(W_grad, 4))
W_grad, b_grad = grad(loss, (0, 1))(W, b)
print('b_grad', round(float(b_grad), 4))
loss_value, Wb_grad = jax.value_and_grad(loss, (0, 1))(W, b)
print('loss value', round(float(loss_value), 4))

def hvp(f, x, v):
    return grad(lambda x: jnp.vdot(grad(f)(x), v))(x)

def hvp2(f, primals, tangents):
    return jvp(grad(f), primals, tangents)[1]

f = lambda x: jnp.sum(jnp.tanh(x) ** 2)
x = jnp.array([0.1, 0.2, 0.3])
print(jnp.round(hvp(f, x, jnp.ones(3)), 4), jnp.round(hvp2(f, (x,), (jnp.ones(3),)), 4))
J = jacfwd(predict, argnums=2)(W, b, inputs)
print("jacfwd result, with shape", J.shape)
J = jacrev(predict, argnums=2)(W, b, inputs)
print("jacrev result, with shape", J.shape)

def hessian(f):
    return jacfwd(jacrev(f))
H = hessian(f)(W)
print("hessian, with shape", H.shape)

# per-example gradients
perex_grads = jit(vmap(grad(loss), in_axes=(None, 0)))
print(perex_grads(W, jnp.array([0.1, 0.2])).shape)

@partial(jit, static_argnums=(1,))
def f2(x, neg):
    return -x if neg else x
print(f2(1.0, True), f2(1.0, False))

params = {'layer1': {'w': jnp.ones((2, 3)), 'b': jnp.zeros(3)}, 'layer2': [jnp.ones(3), None]}
print(jax.tree_util.tree_map(lambda x: x.shape, params))
print(jax.tree_util.tree_leaves(params)[0].shape, len(jax.tree_util.tree_leaves(params)))
x_np = np.arange(4.0)
print(repr(jnp.asarray(x_np)), repr(jnp.array(x_np, dtype=jnp.int32)))
print(jnp.where(jnp.array([0, 3, 0, 4])))
print(jax.devices(), jax.device_put(jnp.ones(2)))
def rnn(h, x):
    h = jnp.tanh(h * 0.5 + x)
    return h, h * 2
h, ys = jax.lax.scan(rnn, jnp.zeros(2), jnp.ones((3, 2)))
print(jnp.round(h, 4), ys.shape)
print(jnp.linalg.norm(jnp.ones((3, 3))), jnp.sum(jnp.ones((2, 3)), axis=(0, 1)))
y = jnp.arange(10).reshape(2, 5)
print(y[:, ::2], y[-1], y[..., 1], y[None].shape, y.flatten()[3:7])
print(jnp.max(jnp.array([1, 5, 3])), jnp.mean(jnp.array([1, 2])), (jnp.arange(3) > 1).sum())
print(jnp.dot(jnp.ones((2, 3)), jnp.ones((3, 4))).shape, jnp.sort(jnp.array([3, 1, 2])), jnp.argsort(jnp.array([3., 1., 2.])))
print(jax.nn.one_hot(jnp.array([1, 0]), 3), jnp.float32(1.5), jnp.int32(3))
