# jax.jacfwd / jacrev / hessian as JAX computes them: one batched pass (vmap over the jvp of the input basis, or over
# the vjp's pullback of the output basis); pytrees of inputs and outputs, argnums tuples, has_aux, inside jit and vmap,
# nested, a scalar input; jacfwd refuses integer inputs with JAX's words.
import jax, jax.numpy as jnp
import numpy as np
r = lambda t: jax.tree_util.tree_map(lambda a: np.round(np.asarray(a), 4), t)     # (printed widths vary with the last digit)
f = lambda x: jnp.sin(x) * x.sum()
x = jnp.arange(1., 4.)
print(r(jax.jacfwd(f)(x)))
print(r(jax.jacrev(f)(x)))
print(r(jax.hessian(lambda x: (jnp.sin(x) ** 2).sum())(x)))
g = lambda a, b: {'p': a * b[0], 'q': jnp.tanh(a).sum() + b[1]}
print(r(jax.jacfwd(g, argnums=(0, 1))(x, (2., 3.))))
print(r(jax.jacrev(g, argnums=(0, 1))(x, (2., 3.))))
for jac in (jax.jacfwd, jax.jacrev):
    print(jax.tree_util.tree_map(lambda a: (a.dtype.name, a.weak_type), jac(g, argnums=(0, 1))(x, (2., 3.))))
print(r(jax.jacfwd(lambda W: jnp.tanh(W @ x))(jnp.ones((2, 3)) * 0.1)))
print(r(jax.jacfwd(lambda x: (x ** 2, x.sum()), has_aux=True)(x)))
print(r(jax.jit(jax.jacfwd(f))(x)))
print(r(jax.vmap(jax.jacfwd(f))(jnp.stack([x, x + 1]))))
print(r(jax.jacfwd(jax.jacfwd(lambda x: jnp.exp(x).prod()))(x)))
print(r(jax.jacfwd(lambda x: x ** 3)(2.0)))
try:
    jax.jacfwd(lambda x: x * 2)(jnp.arange(3))
except TypeError as e:
    print("TypeError", str(e).split(".")[0])
from jax import lax
branchy = lambda v: jnp.sum(lax.cond(v.sum() > 0, lambda a: jnp.sin(a) * a, lambda a: a ** 3, v))
print(r(jax.jit(jax.hessian(branchy))(x)), r(jax.jit(jax.hessian(branchy))(-x)))
print(r(jax.jit(jax.jacrev(lambda v: lax.cond(v[0] > 0, jnp.exp, jnp.cos, v)))(x)))
print(r(jax.jacfwd(lambda x: lax.fori_loop(0, 3, lambda i, c: jnp.tanh(c) + c * 0.5, x))(x)))
# the JAX docs' "thinking in JAX" hessian: jit(jacfwd(jacrev(f))), the jacrev's saved values read inside the vmap
sum_logistic = lambda x: jnp.sum(1.0 / (1.0 + jnp.exp(-x)))
print(r(jax.jit(jax.jacfwd(jax.jacrev(sum_logistic)))(jnp.arange(3.))))
