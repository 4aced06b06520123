# title: JAX: a function, its jaxpr, its gradient, jitted and batched
# title_zh: JAX：一个函数、它的 jaxpr、它的梯度、即时编译与批处理
# concept: tracing, jaxpr, graph transformations, autodiff, jit, vmap
# JAX turns a Python function into a graph by tracing it, then transforms the graph: grad differentiates it,
# jit compiles it, vmap batches it. Open Static for the jitted graph and its jaxpr, Passes and Kernels for
# what compiling did, and Forward / Backward for the gradient.
import jax
import jax.numpy as jnp


def predict(w, x):
    return jnp.tanh(x @ w)                      # one layer: a matmul, then tanh


def loss(w, x, y):
    return jnp.mean((predict(w, x) - y) ** 2)


w = jnp.array([[0.5], [-0.25]])
x = jnp.array([[1.0, 2.0], [3.0, -1.0], [0.5, 0.5]])
y = jnp.array([[0.0], [1.0], [0.5]])

# 1. The jaxpr: the graph JAX traced from the Python code (each line one primitive)
print(jax.make_jaxpr(loss)(w, x, y))

# 2. The gradient: another function, d loss / d w
grad_loss = jax.grad(loss)
print("grad:", grad_loss(w, x, y))

# 3. jit: traced once per input shape, then compiled (a print runs only while tracing)
@jax.jit
def step(w, x, y):
    print("tracing step for w of shape", w.shape)
    return w - 0.1 * grad_loss(w, x, y)


for i in range(3):
    w = step(w, x, y)
    print(i, "loss:", loss(w, x, y))

# 4. vmap: the per-example gradients, as if written for one example and looped
per_example = jax.vmap(grad_loss, in_axes=(None, 0, 0))(w, x[:, None, :], y[:, None, :])
print("per-example grads:", per_example.shape)
