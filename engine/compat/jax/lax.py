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
from engine.errors import UnsupportedError
from engine.tensor import apply

neg = jnp.negative
exp, log, log1p, expm1, sin, cos, tan, tanh = jnp.exp, jnp.log, jnp.log1p, jnp.expm1, jnp.sin, jnp.cos, jnp.tan, jnp.tanh
sqrt, rsqrt, abs, sign, floor, ceil, round = jnp.sqrt, jnp.rsqrt, jnp.abs, jnp.sign, jnp.floor, jnp.ceil, jnp.round
pow, square = jnp.power, jnp.square
eq, ne, lt, le, gt, ge = jnp.equal, jnp.not_equal, jnp.less, jnp.less_equal, jnp.greater, jnp.greater_equal
concatenate, transpose, reshape = (lambda operands, dimension: jnp.concatenate(operands, dimension)), \
    (lambda operand, permutation: jnp.transpose(operand, permutation)), \
    (lambda operand, new_sizes, dimensions=None: jnp.reshape(operand, new_sizes))
dot = jnp.dot
batch_matmul = jnp.matmul
map = map_


def _same_dtypes(name: str, promoting: str, kinds: str, tip: bool = True):
    """A lax binary primitive: no implicit promotion at all (JAX's "lax API requires explicit type
    promotion": even a Python scalar must already have the other operand's dtype)."""
    accepted = ", ".join({"i": "integer", "f": "floating", "c": "complexfloating"}[k] for k in kinds if k != "b")

    def primitive(x, y):
        a, b = to_array(x), to_array(y)
        for position, operand in enumerate((a, b)):
            if operand.dtype.kind == "b" and "b" not in kinds:
                raise TypeError(f"{name} does not accept dtype bool at position {position}. Accepted dtypes at "
                                f"position {position} are subtypes of {accepted}.")
        if a.dtype != b.dtype:
            raise TypeError(f"lax.{name} requires arguments to have the same dtypes, got {a.dtype.name}, "
                            f"{b.dtype.name}." + (f" (Tip: jnp.{promoting} is a similar function that does "
                                                  "automatic type promotion on inputs)." if tip else ""))
        if name == "div" and a.dtype.kind in "iu":
            return _truncating_div(a, b)
        if name == "rem":                     # C's remainder: the dividend's sign (jnp.remainder: the divisor's)
            return jnp.fmod(a, b)
        return getattr(jnp, promoting)(a, b)
    primitive.__name__ = name
    return primitive


def _truncating_div(a, b):
    """lax.div of integers rounds towards zero, as C does (jnp's floor_divide rounds down)."""
    q = jnp.floor_divide(a, b)
    inexact = jnp.not_equal(jnp.subtract(a, jnp.multiply(q, b)), 0)
    signs_differ = jnp.not_equal(jnp.less(a, 0), jnp.less(b, 0))
    return jnp.where(jnp.logical_and(inexact, signs_differ), jnp.add(q, jnp.ones_like(q)), q)


add, sub, mul, div = (_same_dtypes("add", "add", "ifc"), _same_dtypes("sub", "subtract", "ifc"),
                      _same_dtypes("mul", "multiply", "ifc"), _same_dtypes("div", "divide", "ifc"))
max, min, rem = (_same_dtypes("max", "maximum", "bifc"), _same_dtypes("min", "minimum", "bifc"),
                 _same_dtypes("rem", "remainder", "if", tip=False))


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




def conv_general_dilated(lhs, rhs, window_strides, padding, lhs_dilation=None, rhs_dilation=None,
                         dimension_numbers=None, feature_group_count=1, batch_group_count=1, precision=None,
                         preferred_element_type=None):
    """JAX's convolution (a cross-correlation) in its default layout, lhs (N, C, spatial...) and rhs
    (O, I, spatial...), 1-d or 2-d: explicit (low, high) padding, "VALID", "SAME" or "SAME_LOWER",
    strides, kernel dilation and feature groups — the engine's `convolution` op after a `pad`."""
    lhs, rhs = to_array(lhs), to_array(rhs)
    nd = lhs.ndim - 2
    if dimension_numbers is not None or batch_group_count != 1 or any(d != 1 for d in (lhs_dilation or ())):
        raise UnsupportedError("lax.conv_general_dilated with dimension_numbers, lhs_dilation or batch_group_count "
                               "is not supported by Dagscope (the default NC.../OI... layout is)")
    if nd not in (1, 2) or rhs.ndim != lhs.ndim:
        raise UnsupportedError(f"lax.conv_general_dilated on {nd}-d images is not supported by Dagscope (1-d and "
                               "2-d are)")
    if lhs.dtype != rhs.dtype:
        raise TypeError(f"lax.conv_general_dilated requires arguments to have the same dtypes, got "
                        f"{lhs.dtype.name}, {rhs.dtype.name}.")
    strides = tuple(int(s) for s in window_strides)
    dilation = tuple(int(d) for d in (rhs_dilation or (1,) * nd))
    pads = _conv_padding(padding, lhs.shape[2:], rhs.shape[2:], strides, dilation)
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        raise UnsupportedError("negative padding in lax.conv_general_dilated is not supported by Dagscope")
    x = lhs
    if any(lo or hi for lo, hi in pads):
        x = apply("pad", x, pad=tuple(p for lo_hi in reversed(pads) for p in lo_hi), mode="constant", value=0.0)
    out = apply("convolution", x, rhs, stride=strides, padding=(0,) * nd, dilation=dilation,
                groups=int(feature_group_count), transposed=False, output_padding=None)
    return set_weak(as_array(out), is_weak(lhs) and is_weak(rhs))


def _conv_padding(padding, spatial, kernel, strides, dilation) -> list:
    if not isinstance(padding, str):
        return [(int(lo), int(hi)) for lo, hi in padding]
    if padding.upper() == "VALID":
        return [(0, 0)] * len(spatial)
    if padding.upper() not in ("SAME", "SAME_LOWER"):
        raise ValueError(f"Unknown padding: {padding}")
    pads = []
    for size, k, s, d in zip(spatial, kernel, strides, dilation):
        out = -(-size // s)
        total = builtins.max(0, (out - 1) * s + (k - 1) * d + 1 - size)
        lo = total // 2 if padding.upper() == "SAME" else total - total // 2
        pads.append((lo, total - lo))
    return pads


__getattr__ = unsupported_names("jax.lax", globals())
