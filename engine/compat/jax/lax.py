"""`jax.lax`: the primitives JAX's NumPy is written in (each one engine op), stop_gradient, and the
structured control flow of control_flow.py."""
from __future__ import annotations

import builtins

import numpy as np

from engine.compat.jax import numpy as jnp
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import as_array, is_weak, set_weak, to_array
from engine.compat.jax.control_flow import cond, fori_loop, map_, scan, switch, while_loop  # noqa: F401
from engine.compat.jax.transforms import stop_gradient  # noqa: F401
from engine.tensor import apply

add, sub, mul, div, neg = jnp.add, jnp.subtract, jnp.multiply, jnp.divide, jnp.negative
exp, log, log1p, expm1, sin, cos, tan, tanh = jnp.exp, jnp.log, jnp.log1p, jnp.expm1, jnp.sin, jnp.cos, jnp.tan, jnp.tanh
sqrt, rsqrt, abs, sign, floor, ceil, round = jnp.sqrt, jnp.rsqrt, jnp.abs, jnp.sign, jnp.floor, jnp.ceil, jnp.round
max, min, pow, rem, square = jnp.maximum, jnp.minimum, jnp.power, jnp.remainder, jnp.square
eq, ne, lt, le, gt, ge = jnp.equal, jnp.not_equal, jnp.less, jnp.less_equal, jnp.greater, jnp.greater_equal
concatenate, transpose, reshape = (lambda operands, dimension: jnp.concatenate(operands, dimension)), \
    (lambda operand, permutation: jnp.transpose(operand, permutation)), \
    (lambda operand, new_sizes, dimensions=None: jnp.reshape(operand, new_sizes))
dot = jnp.dot
batch_matmul = jnp.matmul
map = map_


def logistic(x):
    x = to_array(x)
    return set_weak(as_array(apply("sigmoid", x)), is_weak(x))


def erf(x):
    x = to_array(x)
    return set_weak(as_array(apply("erf", x)), is_weak(x))


def integer_pow(x, y):
    return jnp.power(x, int(y))


def convert_element_type(operand, new_dtype):
    return jnp.astype(operand, new_dtype)


def broadcast_in_dim(operand, shape, broadcast_dimensions, sharding=None):
    x = to_array(operand)
    expanded = [1] * len(shape)
    for i, d in enumerate(broadcast_dimensions):
        expanded[d] = x.shape[i]
    return jnp.broadcast_to(jnp.reshape(x, expanded), shape)


def broadcast(operand, sizes):
    x = to_array(operand)
    return jnp.broadcast_to(x, tuple(sizes) + x.shape)


def select(pred, on_true, on_false):
    return jnp.where(pred, on_true, on_false)


def select_n(which, *cases):
    if len(cases) == 2:
        return jnp.where(which, cases[1], cases[0])
    out = cases[0]
    for k, c in enumerate(cases[1:], 1):
        out = jnp.where(jnp.equal(which, k), c, out)
    return out


def slice(operand, start_indices, limit_indices, strides=None):
    x = to_array(operand)
    strides = strides or (1,) * x.ndim
    return x[tuple(builtins.slice(s, e, st) for s, e, st in zip(start_indices, limit_indices, strides))]


def dynamic_slice(operand, start_indices, slice_sizes):
    x = to_array(operand)
    starts = [int(np.clip(int(s), 0, n - k)) for s, n, k in zip(start_indices, x.shape, slice_sizes)]
    return x[tuple(builtins.slice(s, s + k) for s, k in zip(starts, slice_sizes))]


def dynamic_update_slice(operand, update, start_indices):
    x, u = to_array(operand), to_array(update)
    starts = [int(np.clip(int(s), 0, n - k)) for s, n, k in zip(start_indices, x.shape, u.shape)]
    return x.at[tuple(builtins.slice(s, s + k) for s, k in zip(starts, u.shape))].set(u)


def dot_general(lhs, rhs, dimension_numbers, precision=None, preferred_element_type=None):
    (lc, rc), (lb, rb) = dimension_numbers
    a, b = to_array(lhs), to_array(rhs)
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la = [next(letters) for _ in range(a.ndim)]
    lr = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(lc, rc):
        lr[j] = la[i]
    for i, j in zip(lb, rb):
        lr[j] = la[i]
    batch = [la[i] for i in lb]
    free_a = [c for i, c in enumerate(la) if i not in lc and i not in lb]
    free_b = [c for j, c in enumerate(lr) if j not in rc and j not in rb]
    return jnp.einsum(f"{''.join(la)},{''.join(lr)}->{''.join(batch + free_a + free_b)}", a, b)


def reduce_sum(operand, axes):
    return jnp.sum(operand, axis=tuple(axes))


def reduce_max(operand, axes):
    return jnp.max(operand, axis=tuple(axes))


def iota(dtype, size):
    return jnp.arange(size, dtype=dtype)


__getattr__ = unsupported_names("jax.lax", globals())
