# optax as JAX courses train with it: sgd (plain, momentum, nesterov) and adam over a dict of parameters, their
# states printed, five steps each, and adam's update inside a jitted step (a polynomial loss: XLA's tanh is not
# numpy's to the last bit, the optimizers' arithmetic is).
import jax
import jax.numpy as jnp
import optax

params = {"w": jnp.array([[0.5, -0.25], [1.0, 0.75]]), "b": jnp.zeros(2)}
x = jnp.array([[1.0, 2.0], [-1.0, 0.5], [0.3, -0.7]])
y = jnp.array([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])

def loss_fn(p):
    return jnp.mean((x @ p["w"] + p["b"] - y) ** 2)

for opt in (optax.sgd(0.1), optax.sgd(0.1, momentum=0.9), optax.sgd(0.05, momentum=0.9, nesterov=True),
            optax.adam(1e-2), optax.adam(learning_rate=0.003, b1=0.8, b2=0.99, eps=1e-6)):
    p = params
    state = opt.init(p)
    print(state)
    for step in range(5):
        loss, grads = jax.value_and_grad(loss_fn)(p)
        updates, state = opt.update(grads, state, p)
        p = optax.apply_updates(p, updates)
        print(step, loss)
    print(p["w"], p["b"])
    print(state)

opt = optax.adam(1e-3)
@jax.jit
def step(p, s):
    loss, g = jax.value_and_grad(loss_fn)(p)
    u, s = opt.update(g, s, p)
    return optax.apply_updates(p, u), s, loss
p, s = params, opt.init(params)
for i in range(3):
    p, s, loss = step(p, s)
print(loss, p["b"])
print(type(opt).__name__, isinstance(opt, optax.GradientTransformation))
