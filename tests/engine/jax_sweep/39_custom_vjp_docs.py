# The JAX docs' custom derivative rules notebook (Custom_derivative_rules_for_Python_code): a custom_vjp's fwd calls
# f itself (the primal there, not the rule again: it recursed), its bwd runs jax.vjp (recorded, though the backward runs
# without recording: its gradient was 0), fixed_point's while_loop inside fwd, pytree arguments (grad of grad of
# newton_sqrt); defvjp returns None.
import jax, jax.numpy as jnp
from jax import custom_vjp, vjp, grad, jit, vmap
from jax.lax import while_loop
from functools import partial
@partial(custom_vjp, nondiff_argnums=(0,))
def fixed_point(f, a, x_guess):
  def cond_fun(carry):
    x_prev, x = carry
    return jnp.abs(x_prev - x) > 1e-6
  def body_fun(carry):
    _, x = carry
    return x, f(a, x)
  _, x_star = while_loop(cond_fun, body_fun, (x_guess, f(a, x_guess)))
  return x_star
def fixed_point_fwd(f, a, x_init):
  x_star = fixed_point(f, a, x_init)
  return x_star, (a, x_star)
def fixed_point_rev(f, res, x_star_bar):
  a, x_star = res
  _, vjp_a = vjp(lambda a: f(a, x_star), a)
  a_bar, = vjp_a(fixed_point(partial(rev_iter, f), (a, x_star, x_star_bar), x_star_bar))
  return a_bar, jnp.zeros_like(x_star)
def rev_iter(f, packed, u):
  a, x_star, x_star_bar = packed
  _, vjp_x = vjp(lambda x: f(a, x), x_star)
  return x_star_bar + vjp_x(u)[0]
print(fixed_point.defvjp(fixed_point_fwd, fixed_point_rev))
def newton_sqrt(a):
  update = lambda a, x: 0.5 * (x + a / x)
  return fixed_point(update, a, a)
print(newton_sqrt(2.))
print(grad(newton_sqrt)(2.))
print(grad(grad(newton_sqrt))(2.))

@custom_vjp
def f(x, y):
  return jnp.sin(x) * y
def f_fwd(x, y):
  return f(x, y), (jnp.cos(x), jnp.sin(x), y)
def f_bwd(res, g):
  cos_x, sin_x, y = res
  return (cos_x * g * y, sin_x * g)
f.defvjp(f_fwd, f_bwd)
print(grad(f)(2., 3.), jit(grad(f))(2., 3.), jnp.round(vmap(grad(f))(jnp.arange(3.), jnp.ones(3)), 5))
