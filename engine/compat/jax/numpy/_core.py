"""JAX's NumPy (`jnp`, re-exported by this package's __init__): each function one or a few ops of the engine's
registry applied to Arrays (engine/compat/jax/array.py), with JAX's dtype rules.

Functions are written from the primitives JAX itself uses where that is cheap (`mean` is a sum
divided by the count, `var` a mean of squared deviations, `x[1]` a slice), so a traced function's
jaxpr shows JAX's equations. Binary ops promote as JAX does (`array.promote`), casting an operand
with a `to_dtype` op (JAX's convert_element_type) before the op.
"""
from __future__ import annotations

import builtins
import math

import numpy as np

from engine import functional as F
from engine.compat.jax import array as _array
from engine.compat.jax import tracing
from engine.compat.jax.array import Array, canonical, default_float, default_int, is_weak, promote, set_weak, to_array
from engine.errors import UnsupportedError
from engine.tensor import Tensor, apply

# ---- dtypes: jnp.float32 is a dtype and a constructor (jnp.float32(2) is an Array) ----------------


class _ScalarType:
    def __init__(self, np_type):
        self.dtype = np.dtype(np_type)
        self.__name__ = self.dtype.name

    def __call__(self, value=0):
        return to_array(value, dtype=self.dtype)

    def __repr__(self) -> str:
        return f"<class 'jax.numpy.{self.dtype.name}'>"

    def __eq__(self, other):
        try:
            return np.dtype(other) == self.dtype
        except TypeError:
            return False

    def __hash__(self):
        return hash(self.dtype)


float16, float32, float64 = _ScalarType(np.float16), _ScalarType(np.float32), _ScalarType(np.float64)
int8, int16, int32, int64 = _ScalarType(np.int8), _ScalarType(np.int16), _ScalarType(np.int32), _ScalarType(np.int64)
uint8, uint32 = _ScalarType(np.uint8), _ScalarType(np.uint32)
bool_ = _ScalarType(np.bool_)
complex64 = _ScalarType(np.complex64)
float_, int_ = float32, int32
dtype = np.dtype
inexact, floating, integer, signedinteger, number = np.inexact, np.floating, np.integer, np.signedinteger, np.number
pi, e, inf, nan, euler_gamma = np.pi, np.e, np.inf, np.nan, np.euler_gamma
newaxis = None
ndarray = _array.AbstractArray           # jnp.ndarray is jax.Array: for isinstance


def issubdtype(a, b) -> bool:
    return np.issubdtype(np.dtype(a), b.dtype if isinstance(b, _ScalarType) else b)


def result_type(*args):
    return promote(*args)[0]


def promote_types(a, b):
    return canonical(np.promote_types(np.dtype(a), np.dtype(b)))


def iinfo(t):
    return np.iinfo(np.dtype(t))


def finfo(t):
    return np.finfo(np.dtype(t))


def _dt(d):
    """A dtype argument (of an array to make) as JAX's canonical dtype; a complex one is refused."""
    if d is None:
        return None
    dt = canonical(np.dtype(d.dtype if isinstance(d, _ScalarType) else d))
    _array.refuse_complex(dt)
    return dt


# ---- helpers ----------------------------------------------------------------------------------------

def _a(x) -> Array:
    return x if type(x) is Array else to_array(x)


def _cast(x: Array, dtype) -> Array:
    """x as `dtype` (a convert_element_type op when it differs)."""
    _array.refuse_complex(dtype)
    if x.array.dtype == dtype:
        return x
    return _array.as_array(apply("to_dtype", x, dtype=np.dtype(dtype)))


def _operands(*xs):
    """The operands as Arrays of their common JAX dtype, and whether the result is weak."""
    dt, weak = promote(*xs)
    out = []
    for x in xs:
        if type(x) in (int, float, bool, complex):
            out.append(to_array(np.asarray(x, dt)))
            continue
        a = _a(x)
        cast = _cast(a, dt)
        if cast is a and is_weak(a) and not weak and tracing.traced(a):
            # a weak tracer meeting a strong operand of its dtype: JAX's convert_element_type to the
            # strong type (weak_type=False) is an equation of the jaxpr even though the dtype is the same
            cast = _array.as_array(apply("to_dtype", a, dtype=np.dtype(dt)))
        out.append(set_weak(cast, weak) if cast is not a else cast)   # convert_element_type's weak_type
    return out, weak


def _out(t, weak: bool = False) -> Array:
    return set_weak(_array.as_array(t), weak)


def _binary(op: str, x, y) -> Array:
    (a, b), weak = _operands(x, y)
    return _out(apply(op, a, b), weak)


def _compare(op: str, x, y) -> Array:
    (a, b), _ = _operands(x, y)
    return _out(apply(op, a, b))


def _float(x) -> Array:
    """x as an inexact array (an integer or bool array becomes float32, as jnp.sin of ints does)."""
    x = _a(x)
    if x.array.dtype.kind in "fc":
        return x
    return set_weak(_cast(x, default_float()), is_weak(x))


def _unary(op: str, x, **attrs) -> Array:
    x = _float(x)
    return _out(apply(op, x, **attrs), is_weak(x))


def _axes(axis, ndim: int):
    """A reduction's axes as the engine's `dim`: None for all, else a tuple of non-negative axes."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        return tuple(_axis(a, ndim) for a in axis)
    return (_axis(axis, ndim),)


def _axis(axis, ndim: int) -> int:
    axis = int(axis)
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise ValueError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


# ---- creation ---------------------------------------------------------------------------------------

def array(object, dtype=None, copy=True, order=None, ndmin=0) -> Array:
    out = to_array(object, _dt(dtype))
    if type(object) in (int, float, complex) and dtype is None:
        out = set_weak(Array(np.array(out.array)), True)
    while out.ndim < ndmin:
        out = expand_dims(out, 0)
    return out


def asarray(a, dtype=None, order=None, copy=None) -> Array:
    return to_array(a, _dt(dtype))


def _filled(shape, value, dtype, weak=False) -> Array:
    parts = (shape,) if isinstance(shape, (int, np.integer, Tensor)) else tuple(shape)
    if builtins.any(isinstance(s, Tensor) and tracing.traced(s) for s in parts):
        # JAX's words: a traced size is not a shape (jnp.ones((n,)) inside jit with n traced)
        raise TypeError("Shapes must be 1D sequences of concrete values of integer type, got "
                        f"({', '.join(tracing.tracer_text(s, is_weak(s)) or repr(s) for s in parts)},).")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if shape and tracing.active() is not None:
        # traced, as JAX traces it: a scalar broadcast (an equation of the jaxpr, not a constant array)
        return set_weak(_out(apply("expand", Array(np.asarray(value, dtype=dtype)), shape=shape)), weak)
    return set_weak(Array(np.full(shape, value, dtype=dtype)), weak)


def zeros(shape, dtype=None) -> Array:
    return _filled(shape, 0, _dt(dtype) or default_float())


def ones(shape, dtype=None) -> Array:
    return _filled(shape, 1, _dt(dtype) or default_float())


def empty(shape, dtype=None) -> Array:
    return zeros(shape, dtype)


def full(shape, fill_value, dtype=None) -> Array:
    dt = _dt(dtype) or (promote(fill_value)[0] if not isinstance(fill_value, Tensor) else fill_value.array.dtype)
    if isinstance(fill_value, Tensor):
        return broadcast_to(_cast(_a(fill_value), dt), shape)
    return _filled(shape, fill_value, dt)


def zeros_like(a, dtype=None, shape=None) -> Array:
    a = _a(a)
    return _filled(a.shape if shape is None else shape, 0, _dt(dtype) or a.dtype, is_weak(a) and dtype is None)


def ones_like(a, dtype=None, shape=None) -> Array:
    a = _a(a)
    return _filled(a.shape if shape is None else shape, 1, _dt(dtype) or a.dtype, is_weak(a) and dtype is None)


def full_like(a, fill_value, dtype=None, shape=None) -> Array:
    a = _a(a)
    return _filled(a.shape if shape is None else shape, fill_value, _dt(dtype) or a.dtype)


empty_like = zeros_like


def arange(start, stop=None, step=None, dtype=None) -> Array:
    values = [v for v in (start, stop, step) if v is not None]
    for v in values:
        if isinstance(v, Tensor):
            operator_index(v)
    values = [v.item() if isinstance(v, Tensor) else v for v in values]
    if dtype is None:
        dtype = default_float() if builtins.any(isinstance(v, float) for v in values) else default_int()
    return Array(np.arange(*values, dtype=_dt(dtype)))


def operator_index(v):
    """A concrete integer: reading a traced value here is what JAX refuses (the read is heard)."""
    return int(v.item()) if isinstance(v, Tensor) else int(v)


def linspace(start, stop, num=50, endpoint=True, retstep=False, dtype=None, axis=0) -> Array:
    """JAX's formula, in float32: start * (1 - s) + stop * s with s = i / div (the end point set exactly)."""
    dt = _dt(dtype) or default_float()
    ct = default_float() if dt.kind != "f" else dt
    num = int(num)
    lo, hi = np.asarray(float(start), ct), np.asarray(float(stop), ct)
    div = (num - 1) if endpoint else num
    if num > 1 and div > 0:
        s = (np.arange(div, dtype=ct) * (np.asarray(1, ct) / np.asarray(div, ct))).astype(ct)   # XLA: x * (1/div)
        values = (lo * (np.asarray(1, ct) - s) + hi * s).astype(ct)
        if endpoint:
            values = np.concatenate([values, hi.reshape(1)])
    else:
        values = np.full((num,), lo, ct)
    out = Array(values.astype(dt))
    if retstep:
        step = (hi - lo) / np.asarray(builtins.max(div, 1), ct)
        return out, Array(np.asarray(step, dt))
    return out


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None) -> Array:
    return power(base, linspace(start, stop, num, endpoint, dtype=dtype))


def eye(N, M=None, k=0, dtype=None) -> Array:
    return Array(np.eye(int(N), None if M is None else int(M), int(k), dtype=_dt(dtype) or default_float()))


def identity(n, dtype=None) -> Array:
    return eye(n, dtype=dtype)


def tri(N, M=None, k=0, dtype=None) -> Array:
    return Array(np.tri(int(N), None if M is None else int(M), int(k), dtype=_dt(dtype) or default_float()))


def tril(m, k=0) -> Array:
    m = _a(m)
    return _out(apply("tril", m, diagonal=int(k)), is_weak(m))


def triu(m, k=0) -> Array:
    m = _a(m)
    return _out(apply("triu", m, diagonal=int(k)), is_weak(m))


def diag(v, k=0) -> Array:
    v = _a(v)
    if v.ndim == 1:
        return _diag_from_vector(v, int(k))
    if v.ndim != 2:
        raise ValueError("diag input must be 1d or 2d")
    return diagonal(v, int(k))


def _diag_from_vector(v: Array, k: int) -> Array:
    n = v.shape[0] + builtins.abs(k)
    basis = np.zeros((v.shape[0], n, n), v.dtype)
    for i in range(v.shape[0]):
        basis[i, i + builtins.max(-k, 0), i + builtins.max(k, 0)] = 1
    return einsum("i,ijk->jk", v, Array(basis))


def diagonal(a, offset=0, axis1=0, axis2=1) -> Array:
    a = _a(a)
    rows, cols = a.shape[axis1], a.shape[axis2]
    i = np.arange(builtins.max(0, builtins.min(rows, cols - offset) if offset >= 0 else builtins.min(rows + offset, cols)))
    r, c = (i, i + offset) if offset >= 0 else (i - offset, i)
    moved = moveaxis(moveaxis(a, axis1, -2), axis2 if axis2 > axis1 else axis2 + 1, -1) if a.ndim > 2 else a
    return moved[..., Array(r.astype(default_int())), Array(c.astype(default_int()))]


def trace(a, offset=0, axis1=0, axis2=1) -> Array:
    return sum(diagonal(a, offset, axis1, axis2), axis=-1)


def meshgrid(*xi, indexing="xy"):
    arrays = [_a(x) for x in xi]
    shape = [x.size for x in arrays]
    if indexing == "xy" and len(arrays) >= 2:
        shape[0], shape[1] = shape[1], shape[0]
    out = []
    for i, x in enumerate(arrays):
        pos = i
        if indexing == "xy" and len(arrays) >= 2 and i < 2:
            pos = 1 - i
        s = [1] * len(arrays)
        s[pos] = x.size
        out.append(broadcast_to(reshape(x, s), shape))
    return out


# ---- elementwise ------------------------------------------------------------------------------------

def add(x, y):
    return _binary("add", x, y)


def subtract(x, y):
    return _binary("sub", x, y)


def multiply(x, y):
    return _binary("mul", x, y)


def divide(x, y):
    (a, b), weak = _operands(x, y)
    if a.array.dtype.kind in "iub":
        a, b = _cast(a, default_float()), _cast(b, default_float())
    if type(y) in (int, float) and a.array.dtype.kind == "f":
        # a literal divisor: XLA compiles x / c as x * (1 / c), so JAX's values are that product's
        # (its jaxpr still says `div`, and so does this one's: tracing.Trace.shown_as)
        reciprocal = Array(np.asarray(1, a.array.dtype) / np.asarray(y, a.array.dtype))
        out = _out(apply("mul", a, reciprocal), weak)
        trace = tracing.active()
        if trace is not None and id(out) in trace.values:
            trace.shown_as[trace.values[id(out)].id] = ("div", b.array)
        return out
    return _out(apply("div", a, b), weak)


true_divide = divide


def floor_divide(x, y):
    (a, b), weak = _operands(x, y)
    if a.array.dtype.kind == "f":
        return _out(apply("floor", apply("div", a, b)), weak)
    return _out(apply("floor_divide", a, b), weak)


def remainder(x, y):
    return _binary("remainder", x, y)


mod = remainder


def fmod(x, y):
    return _binary("fmod", x, y)


def power(x, y):
    if type(y) is int and not isinstance(x, (int, float)):
        x = _a(x)
        return _out(apply("pow_scalar", x, exponent=y), is_weak(x))
    return _binary("pow", x, y)


def float_power(x, y):
    return power(_float(x), y)


def negative(x):
    x = _a(x)
    return _out(apply("neg", x), is_weak(x))


def positive(x):
    return _a(x)


def reciprocal(x):
    return divide(1.0, x)


def square(x):
    x = _a(x)
    return _out(apply("pow_scalar", x, exponent=2), is_weak(x))


def sqrt(x):
    return _unary("sqrt", x)


def rsqrt(x):
    return divide(1.0, sqrt(x))


def cbrt(x):
    x = _float(x)
    return multiply(sign(x), power(abs(x), 1.0 / 3.0))


def exp(x):
    return _unary("exp", x)


def exp2(x):
    return exp(multiply(_float(x), math.log(2.0)))


def expm1(x):
    return subtract(exp(x), 1.0)


def log(x):
    return _unary("log", x)


def log1p(x):
    return log(add(_float(x), 1.0))


def log2(x):
    return divide(log(x), math.log(2.0))


def log10(x):
    return divide(log(x), math.log(10.0))


def logaddexp(x, y):
    m = maximum(x, y)
    return add(m, log(add(exp(subtract(x, m)), exp(subtract(y, m)))))


def sin(x):
    return _unary("sin", x)


def cos(x):
    return _unary("cos", x)


def tan(x):
    return divide(sin(x), cos(x))


def tanh(x):
    return _unary("tanh", x)


def sinh(x):
    x = _float(x)
    return multiply(subtract(exp(x), exp(negative(x))), 0.5)


def cosh(x):
    x = _float(x)
    return multiply(add(exp(x), exp(negative(x))), 0.5)


def abs(x):
    x = _a(x)
    return _out(apply("abs", x), is_weak(x))


absolute = abs


def sign(x):
    x = _a(x)
    return _out(apply("sign", x), is_weak(x))


def floor(x):
    return _unary("floor", x)


def ceil(x):
    return _unary("ceil", x)


def round(a, decimals=0):
    a = _float(a)
    if decimals:
        # JAX divides by 10**decimals, which XLA compiles as a multiplication by its float32 reciprocal
        scale = 10.0 ** decimals
        inverse = np.asarray(1.0, a.dtype) / np.asarray(scale, a.dtype)
        return multiply(_out(apply("round", multiply(a, scale)), is_weak(a)), float(inverse))
    return _out(apply("round", a), is_weak(a))


around = round


def trunc(x):
    x = _float(x)
    return where(less(x, 0), ceil(x), floor(x))


def maximum(x, y):
    return _binary("maximum", x, y)


def minimum(x, y):
    return _binary("minimum", x, y)


def clip(a, a_min=None, a_max=None, *, min=None, max=None):
    lo = a_min if min is None else min
    hi = a_max if max is None else max
    out = _a(a)
    if lo is not None:
        out = maximum(out, lo)
    if hi is not None:
        out = minimum(out, hi)
    return out


def equal(x, y):
    return _compare("eq", x, y)


def not_equal(x, y):
    return _compare("ne", x, y)


def greater(x, y):
    return _compare("gt", x, y)


def greater_equal(x, y):
    return _compare("ge", x, y)


def less(x, y):
    return _compare("lt", x, y)


def less_equal(x, y):
    return _compare("le", x, y)


def logical_and(x, y):
    return _out(apply("bitwise_and", _cast(_a(x), np.bool_), _cast(_a(y), np.bool_)))


def logical_or(x, y):
    return _out(apply("bitwise_or", _cast(_a(x), np.bool_), _cast(_a(y), np.bool_)))


def logical_xor(x, y):
    return _out(apply("bitwise_xor", _cast(_a(x), np.bool_), _cast(_a(y), np.bool_)))


def logical_not(x):
    return _out(apply("bitwise_not", _cast(_a(x), np.bool_)))


def bitwise_and(x, y):
    return _binary("bitwise_and", x, y)


def bitwise_or(x, y):
    return _binary("bitwise_or", x, y)


def bitwise_xor(x, y):
    return _binary("bitwise_xor", x, y)


def invert(x):
    x = _a(x)
    return _out(apply("bitwise_not", x), is_weak(x))


bitwise_not = invert


def isnan(x):
    return _out(apply("isnan", _a(x)))


def isinf(x):
    return _out(apply("isinf", _a(x)))


def isfinite(x):
    return _out(apply("isfinite", _a(x)))


def where(condition, x=None, y=None):
    if x is None and y is None:
        return nonzero(condition)
    if x is None or y is None:
        raise ValueError("Either both or neither of the x and y arguments should be provided to jax.numpy.where")
    trace = tracing.active()
    if trace is not None:
        return _traced_where(trace, condition, x, y)
    (a, b), weak = _operands(x, y)
    return _out(apply("where", _cast(_a(condition), np.bool_), a, b), weak)


def _traced_where(trace, condition, x, y) -> Array:
    """jnp.where inside a trace, as JAX writes it: a call of its jitted `_where` (its jaxpr a `jit`
    equation), which gives both operands the result's type (a weak operand made strong by a
    convert_element_type even of the same dtype), broadcasts them and selects."""
    c, a, b = (x if isinstance(x, Tensor) else to_array(x) for x in (condition, x, y))
    start = len(trace.graph.nodes)
    inputs = [trace.value_of(t) for t in (c, a, b)]
    dt, weak = promote(a, b)
    ops = []
    for t in (a, b):
        if t.array.dtype != dt or (is_weak(t) and not weak):
            t = set_weak(_array.as_array(apply("to_dtype", t, dtype=np.dtype(dt))), weak)
        ops.append(t)
    c = _cast(c, np.bool_)
    shape = tuple(np.broadcast_shapes(c.shape, ops[0].shape, ops[1].shape))
    # a scalar predicate stays one (select_n takes it as it is); the operands are broadcast
    lifted = (t if t.shape == shape or (t is c and t.ndim == 0) else _out(apply("expand", t, shape=shape), is_weak(t))
              for t in (c, *ops))
    c, a, b = lifted
    out = _out(apply("where", c, a, b), weak)
    tracing.note_call(trace, "_where", inputs, [trace.value_of(out)], start)
    return out


def select(condlist, choicelist, default=0):
    out = default
    for cond, choice in reversed(list(zip(condlist, choicelist))):
        out = where(cond, choice, out)
    return out


def nonzero(a, *, size=None, fill_value=None):
    a = _a(a)
    return tuple(Array(i.astype(default_int())) for i in np.nonzero(np.asarray(a.tolist())))


def argwhere(a):
    a = _a(a)
    return Array(np.argwhere(np.asarray(a.tolist())).astype(default_int()))


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    a, b = _a(a), _a(b)
    return less_equal(abs(subtract(a, b)), add(atol, multiply(rtol, abs(b))))


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    return all(isclose(a, b, rtol, atol, equal_nan))


def array_equal(a1, a2, equal_nan=False):
    a1, a2 = _a(a1), _a(a2)
    if a1.shape != a2.shape:
        return Array(np.asarray(False))
    return all(equal(a1, a2))


# ---- reductions -------------------------------------------------------------------------------------

def _arraylike(name: str, *xs) -> None:
    """JAX's check_arraylike: jnp's functions refuse a list or tuple (jnp.sum([1, 2]); jnp.array makes one)."""
    for i, x in enumerate(xs):
        if isinstance(x, (list, tuple)):
            raise TypeError(f"{name} requires ndarray or scalar arguments, got {type(x)} at position {i}.")


def _reduce(op: str, a, axis, keepdims, dtype=None, where_=None):
    a = _a(a)
    if dtype is not None:
        a = _cast(a, _dt(dtype))
    elif op == "sum" and (a.array.dtype.kind in "bu" or a.array.dtype.kind == "i" and a.array.dtype.itemsize < 4):
        a = _cast(a, default_int())
    out = _out(apply(op, a, dim=_axes(axis, a.ndim), keepdim=bool(keepdims)), is_weak(a))
    if out.array.dtype != a.array.dtype and a.array.dtype.kind in "iu":
        out = set_weak(_cast(out, a.array.dtype), is_weak(a))    # the engine sums integers in int64, JAX in their own type
    return out


def sum(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _arraylike("sum", a)
    return _reduce("sum", a, axis, keepdims, dtype)


def prod(a, axis=None, dtype=None, out=None, keepdims=False, initial=None, where=None):
    _arraylike("prod", a)
    a = _a(a)
    if axis is None:
        return _out(apply("prod", reshape(a, (-1,)), dim=0, keepdim=False), is_weak(a))
    if isinstance(axis, (tuple, list)):
        for ax in sorted((_axis(x, a.ndim) for x in axis), reverse=True):
            a = prod(a, ax, keepdims=keepdims)
        return a
    return _out(apply("prod", a, dim=_axis(axis, a.ndim), keepdim=bool(keepdims)), is_weak(a))


def _count(a: Array, axis) -> int:
    dims = _axes(axis, a.ndim)
    if dims is None:
        return a.size
    return int(np.prod([a.shape[d] for d in dims]))


def mean(a, axis=None, dtype=None, out=None, keepdims=False, where=None):
    _arraylike("mean", a)
    a = _float(a) if dtype is None else _cast(_a(a), _dt(dtype))
    return divide(sum(a, axis, keepdims=keepdims), float(_count(a, axis)))


average = mean


def var(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, correction=None):
    _arraylike("var", a)
    a = _float(a)
    ddof = ddof if correction is None else correction
    centered = subtract(a, mean(a, axis, keepdims=True))
    return divide(sum(square(centered), axis, keepdims=keepdims), float(_count(a, axis) - ddof))


def std(a, axis=None, dtype=None, out=None, ddof=0, keepdims=False, where=None, correction=None):
    _arraylike("std", a)
    return sqrt(var(a, axis, dtype, out, ddof, keepdims, correction=correction))


def max(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _arraylike("max", a)
    return _reduce("amax", a, axis, keepdims)


def min(a, axis=None, out=None, keepdims=False, initial=None, where=None):
    _arraylike("min", a)
    return _reduce("amin", a, axis, keepdims)


amax, amin = max, min


def ptp(a, axis=None, keepdims=False):
    return subtract(max(a, axis, keepdims=keepdims), min(a, axis, keepdims=keepdims))


def _arg(op: str, a, axis, keepdims):
    a = _a(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    out = apply(op, a, dim=_axis(axis, a.ndim), keepdim=bool(keepdims))
    return _cast(_out(out), default_int())


def argmax(a, axis=None, out=None, keepdims=False):
    _arraylike("argmax", a)
    return _arg("argmax", a, axis, keepdims)


def argmin(a, axis=None, out=None, keepdims=False):
    _arraylike("argmin", a)
    return _arg("argmin", a, axis, keepdims)


def any(a, axis=None, out=None, keepdims=False, where=None):
    _arraylike("any", a)
    return _out(apply("amax", _cast(_a(a), np.bool_), dim=_axes(axis, _a(a).ndim), keepdim=bool(keepdims)))


def all(a, axis=None, out=None, keepdims=False, where=None):
    _arraylike("all", a)
    return _out(apply("amin", _cast(_a(a), np.bool_), dim=_axes(axis, _a(a).ndim), keepdim=bool(keepdims)))


def cumsum(a, axis=None, dtype=None):
    _arraylike("cumsum", a)
    a = _a(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return _out(apply("cumsum", a, dim=_axis(axis, a.ndim)), is_weak(a))


def cumprod(a, axis=None, dtype=None):
    a = _a(a)
    if axis is None:
        a, axis = reshape(a, (-1,)), 0
    return _out(apply("cumprod", a, dim=_axis(axis, a.ndim)), is_weak(a))


def count_nonzero(a, axis=None, keepdims=False):
    return sum(not_equal(a, 0), axis, keepdims=keepdims)


# ---- linear algebra ---------------------------------------------------------------------------------

def matmul(a, b):
    (x, y), weak = _operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        raise ValueError("matmul: inputs must have at least one dimension")
    return _out(apply("matmul", x, y), weak)


def dot(a, b):
    (x, y), weak = _operands(a, b)
    if x.ndim == 0 or y.ndim == 0:
        return multiply(x, y)
    if y.ndim > 2:
        return tensordot(x, y, axes=((x.ndim - 1,), (y.ndim - 2,)))
    return _out(apply("matmul", x, y), weak)


def convolve(a, v, mode="full", *, precision=None, preferred_element_type=None):
    return _conv1d(a, v, mode, "convolve")


def correlate(a, v, mode="valid", *, precision=None, preferred_element_type=None):
    return _conv1d(a, v, mode, "correlate")


def _conv1d(x, y, mode: str, op: str) -> Array:
    """JAX's jnp.convolve / jnp.correlate (jax/_src/numpy: _conv): 1-d, as floats, the longer input
    slid over by the shorter (correlate then reads the result backwards), the kernel flipped for a
    convolution, padded by `mode`; one convolution of the engine (JAX's conv_general_dilated)."""
    (x, y), weak = _operands(_float(x), _float(y))
    if x.ndim != 1 or y.ndim != 1:
        raise ValueError(f"{op}() only support 1-dimensional inputs.")
    if x.shape[0] == 0 or y.shape[0] == 0:
        raise ValueError(f"{op}: inputs cannot be empty, got shapes {x.shape} and {y.shape}.")
    backwards = False
    if x.shape[0] < y.shape[0]:
        x, y, backwards = y, x, op == "correlate"
    if op == "convolve":
        y = apply("flip", y, dims=(0,))
    n = y.shape[0]
    pads = {"valid": (0, 0), "same": (n // 2, n - n // 2 - 1), "full": (n - 1, n - 1)}.get(mode)
    if pads is None:
        raise ValueError("mode must be one of ['full', 'same', 'valid']")
    lhs = apply("reshape", x, shape=(1, 1, x.shape[0]))
    if builtins.any(pads):
        lhs = apply("pad", lhs, pad=pads, mode="constant", value=0.0)
    out = apply("convolution", lhs, apply("reshape", y, shape=(1, 1, n)), stride=(1,), padding=(0,), dilation=(1,),
                groups=1, transposed=False, output_padding=None)
    out = apply("reshape", out, shape=(out.array.shape[2],))
    return _out(apply("flip", out, dims=(0,)) if backwards else out, weak)


def vdot(a, b):
    return dot(ravel(a), ravel(b))


def inner(a, b):
    a, b = _a(a), _a(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return tensordot(a, b, axes=((a.ndim - 1,), (b.ndim - 1,)))


def outer(a, b):
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def einsum(subscripts, *operands, optimize=None, precision=None, preferred_element_type=None):
    arrays, weak = _operands(*operands)
    return _out(apply("einsum", *arrays, equation=subscripts.replace(" ", "")), weak)


def tensordot(a, b, axes=2):
    a, b = _a(a), _a(b)
    if isinstance(axes, int):
        axes = (tuple(range(a.ndim - axes, a.ndim)), tuple(range(axes)))
    ax_a = [x % a.ndim for x in (axes[0] if isinstance(axes[0], (tuple, list)) else (axes[0],))]
    ax_b = [x % b.ndim for x in (axes[1] if isinstance(axes[1], (tuple, list)) else (axes[1],))]
    letters = iter("abcdefghijklmnopqrstuvwxyz")
    la = [next(letters) for _ in range(a.ndim)]
    lb = [next(letters) for _ in range(b.ndim)]
    for i, j in zip(ax_a, ax_b):
        lb[j] = la[i]
    out = [c for i, c in enumerate(la) if i not in ax_a] + [c for j, c in enumerate(lb) if j not in ax_b]
    return einsum(f"{''.join(la)},{''.join(lb)}->{''.join(out)}", a, b)


# ---- shapes -----------------------------------------------------------------------------------------

def _shape_arg(shape) -> tuple:
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def reshape(a, shape=None, order="C", *, newshape=None, copy=None):
    a = _a(a)
    given = shape if shape is not None else newshape
    shape = _shape_arg(given)
    if -1 in shape:
        known = int(np.prod([s for s in shape if s != -1]))
        if known == 0 or a.size % known:
            raise TypeError(f"cannot reshape array of shape {a.shape} (size {a.size}) into shape {given}")
        shape = tuple(a.size // known if s == -1 else s for s in shape)
    if int(np.prod(shape)) != a.size:
        raise TypeError(f"cannot reshape array of shape {a.shape} (size {a.size}) into shape {given} "
                        f"(size {int(np.prod(shape))})")
    if shape == a.shape:
        return a
    return _out(apply("reshape", a, shape=shape), is_weak(a))


def ravel(a, order="C"):
    return reshape(a, (-1,))


def transpose(a, axes=None):
    a = _a(a)
    axes = tuple(reversed(range(a.ndim))) if axes is None else tuple(_axis(x, a.ndim) for x in axes)
    if axes == tuple(range(a.ndim)):
        return a
    return _out(apply("permute", a, dims=axes), is_weak(a))


def permute_dims(a, axes=None):
    return transpose(a, axes)


def matrix_transpose(x):
    x = _a(x)
    return swapaxes(x, -1, -2)


def swapaxes(a, axis1, axis2):
    a = _a(a)
    axes = list(range(a.ndim))
    i, j = _axis(axis1, a.ndim), _axis(axis2, a.ndim)
    axes[i], axes[j] = axes[j], axes[i]
    return transpose(a, axes)


def moveaxis(a, source, destination):
    a = _a(a)
    s, d = _axis(source, a.ndim), _axis(destination, a.ndim)
    order = [i for i in range(a.ndim) if i != s]
    order.insert(d, s)
    return transpose(a, order)


def expand_dims(a, axis):
    a = _a(a)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = a.ndim + len(axes)
    positions = sorted(x % ndim for x in axes)
    shape = list(a.shape)
    for p in positions:
        shape.insert(p, 1)
    return reshape(a, shape)


def squeeze(a, axis=None):
    a = _a(a)
    if axis is None:
        shape = [s for s in a.shape if s != 1]
    else:
        axes = {_axis(x, a.ndim) for x in (axis if isinstance(axis, (tuple, list)) else (axis,))}
        for x in axes:
            if a.shape[x] != 1:
                raise ValueError(f"cannot select an axis to squeeze out which has size not equal to one, got "
                                 f"shape={a.shape} and dimensions={tuple(sorted(axes))}")
        shape = [s for i, s in enumerate(a.shape) if i not in axes]
    return reshape(a, shape)


def broadcast_to(array, shape):
    a = _a(array)
    shape = _shape_arg(shape)
    if a.shape == shape:
        return a
    if a.ndim < len(shape):
        a = reshape(a, (1,) * (len(shape) - a.ndim) + a.shape)
    return _out(apply("expand", a, shape=shape), is_weak(a))


def broadcast_arrays(*args):
    shape = np.broadcast_shapes(*(_a(x).shape for x in args))
    return [broadcast_to(x, shape) for x in args]


def broadcast_shapes(*shapes):
    return np.broadcast_shapes(*shapes)


def atleast_1d(*arys):
    out = [reshape(a, (1,)) if _a(a).ndim == 0 else _a(a) for a in arys]
    return out[0] if len(out) == 1 else out


def atleast_2d(*arys):
    out = []
    for a in arys:
        a = _a(a)
        out.append(reshape(a, (1,) * (2 - a.ndim) + a.shape) if a.ndim < 2 else a)
    return out[0] if len(out) == 1 else out


def concatenate(arrays, axis=0, dtype=None):
    arrays, weak = _operands(*arrays)
    if axis is None:
        arrays, axis = [ravel(a) for a in arrays], 0
    return _out(apply("cat", *arrays, dim=_axis(axis, arrays[0].ndim)), weak)


concat = concatenate


def stack(arrays, axis=0, out=None, dtype=None):
    arrays, weak = _operands(*arrays)
    return _out(apply("stack", *arrays, dim=_axis(axis, arrays[0].ndim + 1)), weak)


def hstack(tup):
    arrays = [atleast_1d(a) for a in tup]
    return concatenate(arrays, axis=0 if arrays[0].ndim == 1 else 1)


def vstack(tup):
    return concatenate([atleast_2d(a) for a in tup], axis=0)


def column_stack(tup):
    return concatenate([reshape(a, (-1, 1)) if _a(a).ndim == 1 else _a(a) for a in tup], axis=1)


def split(ary, indices_or_sections, axis=0):
    a = _a(ary)
    axis = _axis(axis, a.ndim)
    n = a.shape[axis]
    if isinstance(indices_or_sections, int):
        if n % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
        size = n // indices_or_sections
        bounds = list(range(0, n + 1, size))
    else:
        bounds = [0] + [int(i) for i in indices_or_sections] + [n]
    index = [slice(None)] * a.ndim
    out = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        index[axis] = slice(lo, hi)
        out.append(a[tuple(index)])
    return out


def flip(m, axis=None):
    m = _a(m)
    dims = tuple(range(m.ndim)) if axis is None else _axes(axis, m.ndim)
    return _out(apply("flip", m, dims=dims), is_weak(m))


def roll(a, shift, axis=None):
    a = _a(a)
    if axis is None:
        return reshape(roll(ravel(a), shift, 0), a.shape)
    shifts = shift if isinstance(shift, (tuple, list)) else (shift,)
    return _out(apply("roll", a, shifts=tuple(int(s) for s in shifts), dims=_axes(axis, a.ndim)), is_weak(a))


def tile(A, reps):
    a = _a(A)
    reps = (reps,) if isinstance(reps, int) else tuple(reps)
    ndim = builtins.max(a.ndim, len(reps))
    a = reshape(a, (1,) * (ndim - a.ndim) + a.shape)
    reps = (1,) * (ndim - len(reps)) + reps
    for axis, r in enumerate(reps):
        if r != 1:
            a = concatenate([a] * r, axis=axis)
    return a


def repeat(a, repeats, axis=None, total_repeat_length=None):
    a = _a(a)
    if axis is None:
        a, axis = ravel(a), 0
    axis = _axis(axis, a.ndim)
    idx = np.repeat(np.arange(a.shape[axis]), repeats).astype(default_int())
    return take(a, Array(idx), axis=axis)


def pad(array, pad_width, mode="constant", constant_values=0):
    a = _a(array)
    widths = np.broadcast_to(np.asarray(pad_width, dtype=int), (a.ndim, 2))
    if mode != "constant":
        raise NotImplementedError(f"jnp.pad mode={mode!r} is not supported by Dagscope (only 'constant')")
    flat = []
    for lo, hi in reversed(widths.tolist()):
        flat += [lo, hi]
    return _out(apply("pad", a, pad=tuple(flat), mode="constant", value=float(constant_values)), is_weak(a))


# ---- indexing and sorting ---------------------------------------------------------------------------

def _index_key(key):
    """An index with Arrays as the engine's int64 index tensors (JAX normalises negative ones too)."""
    if isinstance(key, tuple):
        return tuple(_index_key(k) for k in key)
    if isinstance(key, Tensor) and key.array.dtype.kind in "iu":
        return _out(apply("to_dtype", key, dtype=np.dtype(np.int64))) if key.array.dtype != np.int64 else key
    if isinstance(key, (list, np.ndarray)):
        arr = np.asarray(key)
        return Tensor(arr.astype(np.int64)) if arr.dtype.kind in "iu" else Tensor(arr)
    return key


def getitem(a, key):
    a = _a(a)
    for k in key if isinstance(key, tuple) else (key,):
        if isinstance(k, Tensor) and k.array.dtype == np.bool_ and tracing.traced(k):
            raise tracing.NonConcreteBooleanIndexError(
                f"Array boolean indices must be concrete; got bool[{','.join(map(str, k.array.shape))}]\n\nSee "
                "https://docs.jax.dev/en/latest/errors.html#jax.errors.NonConcreteBooleanIndexError")
    key = _clamped(tuple(a.shape), key)
    flipped = _negative_steps(tuple(a.shape), key)
    if flipped is not None:                   # x[::-1]: JAX reverses the axis (lax.rev), then slices
        dims, key = flipped
        weak, a = is_weak(a), _out(apply("flip", a, dims=dims), is_weak(a))
        if builtins.all(k == slice(None) for k in key):
            return a
        return _out(F.getitem(a, _index_key(key)), weak)
    return _out(F.getitem(a, _index_key(key)), is_weak(a))


def _clamped(shape: tuple, key):
    """`key` with its integer indices clamped into their axes, as JAX's gather clamps an out-of-bounds
    index (x[11] of 10 elements is x[9], x[-11] is x[0]): Python ints and integer arrays, a traced one
    by a clip in the graph. Keys with a boolean mask or an Ellipsis after an array are left as they are."""
    parts = key if isinstance(key, tuple) else (key,)
    if builtins.any(isinstance(k, (Tensor, np.ndarray, list)) and np.asarray(_array._unwrap(k) if not isinstance(k, Tensor)
                                                                               else k.array).dtype == np.bool_
                    for k in parts):
        return key
    named = builtins.sum(1 for k in parts if k is not None and k is not Ellipsis)
    out, axis = [], 0
    for k in parts:
        if k is Ellipsis:
            axis += len(shape) - named
        elif k is not None and axis < len(shape):
            n = shape[axis]
            if isinstance(k, (int, np.integer)) and not isinstance(k, bool) and not -n <= k < n and n:
                k = n - 1 if k >= n else 0
            elif isinstance(k, Tensor) and k.array.dtype.kind in "iu" and n:
                if tracing.traced(k):
                    k = clip(k, -n, n - 1)
                elif k.array.size and (k.array.max() >= n or k.array.min() < -n):
                    k = Array(np.where(k.array < -n, 0, np.minimum(k.array, n - 1)).astype(k.array.dtype))
        if k is not None and k is not Ellipsis:
            axis += 1
        out.append(k)
    return tuple(out) if isinstance(key, tuple) else out[0]


def _negative_steps(shape: tuple, key):
    """(the axes to reverse, the key on the reversed array) where a slice of `key` steps backwards
    (numpy's meaning, which JAX keeps; a PyTorch tensor refuses it), or None. Keys of ints, slices,
    None and ... only; an array in the key leaves it to the indexing below."""
    parts = key if isinstance(key, tuple) else (key,)
    if not builtins.any(isinstance(k, slice) and k.step is not None and k.step < 0 for k in parts):
        return None
    if not builtins.all(k is None or k is Ellipsis or isinstance(k, (slice, int, np.integer)) for k in parts):
        return None
    ndim, named = len(shape), builtins.sum(1 for k in parts if k is not None and k is not Ellipsis)
    dims, out, axis = [], [], 0
    for k in parts:
        if k is Ellipsis:
            axis += ndim - named
        elif isinstance(k, slice) and k.step is not None and k.step < 0 and axis < ndim:
            n = shape[axis]
            start, stop, step = k.indices(n)
            dims.append(axis)
            k = slice(n - 1 - start, n - 1 - stop, -step)
            if k.indices(n) == (0, n, 1):
                k = slice(None)               # the whole reversed axis: no slice after the rev
        if k is not None and k is not Ellipsis:
            axis += 1
        out.append(k)
    return tuple(dims), tuple(out)


def take(a, indices, axis=None, mode=None, fill_value=None):
    a = _a(a)
    if axis is None:
        a, axis = ravel(a), 0
    key = [slice(None)] * a.ndim
    key[_axis(axis, a.ndim)] = _a(indices)
    return getitem(a, tuple(key))


def take_along_axis(arr, indices, axis):
    arr, indices = _a(arr), _a(indices)
    return _out(apply("gather", arr, _index_key(indices), dim=_axis(axis, arr.ndim)), is_weak(arr))


def sort(a, axis=-1):
    a = _a(a)
    if axis is None:
        a, axis = ravel(a), 0
    return take_along_axis(a, argsort(a, axis), axis)


def argsort(a, axis=-1, kind=None, order=None, stable=True, descending=False):
    a = _a(a)
    if axis is None:
        a, axis = ravel(a), 0
    out = apply("argsort", a, dim=_axis(axis, a.ndim), descending=bool(descending))
    return _cast(_out(out), default_int())


def update(x, index, values, mode: str) -> Array:
    """`x.at[index].set(values)` and friends: a scatter into a copy of x, as a differentiable op."""
    x = _a(x)
    if mode == "get_fill":
        return _get_filled(x, index, values)
    keys = index if isinstance(index, tuple) else (index,)
    if builtins.any(isinstance(k, Tensor) for k in keys) and \
            builtins.all(isinstance(k, (int, np.integer)) or isinstance(k, Tensor) and k.array.dtype.kind in "iu"
                         for k in keys):
        return _update_at_arrays(x, keys, values, mode)
    positions = np.arange(x.size, dtype=np.int64).reshape(x.shape)[_numpy_index(index)]
    flat = reshape(x, (-1,))
    pos = Tensor(np.ascontiguousarray(positions).reshape(-1))
    vals = _cast(_a(values), x.dtype) if not (type(values) in (int, float, bool)) else \
        Array(np.asarray(values, x.dtype))
    vals = reshape(broadcast_to(vals, positions.shape), (-1,))
    if mode in ("set", "add"):
        out = F.index_put(flat, (pos,), vals, accumulate=mode == "add")
        return _out(reshape(_out(out), x.shape), is_weak(x))
    current = getitem(flat, pos)
    return update(x, index, reshape(_COMBINE[mode](current, vals), positions.shape), "set")


def _get_filled(x: Array, index, fill_value) -> Array:
    """`x.at[index].get(mode='fill', fill_value=v)`: x[index], with v where an index is out of bounds
    (JAX's default v: NaN for floats, the smallest int, True). Integer and slice keys, and one integer
    array as the first key."""
    got = getitem(x, index)
    if fill_value is None:
        kind = x.dtype.kind
        fill_value = np.nan if kind in "fc" else np.iinfo(x.dtype).min if kind == "i" else \
            np.iinfo(x.dtype).max if kind == "u" else True
    keys = index if isinstance(index, tuple) else (index,)
    bad = False
    for axis, k in enumerate(keys):
        n = x.shape[axis] if axis < x.ndim else 0
        if isinstance(k, (int, np.integer)) and not isinstance(k, bool):
            bad = bad or not -n <= k < n
        elif isinstance(k, Tensor) and k.array.dtype.kind in "iu" and axis == 0:
            k = _a(k)
            mask = logical_or(less(k, -n), greater_equal(k, n))
            bad = logical_or(bad, reshape(mask, k.shape + (1,) * (got.ndim - k.ndim)))
        elif not isinstance(k, slice):
            raise UnsupportedError("x.at[...].get(mode='fill') takes integers, slices and one integer array "
                                   "as the first index in Dagscope")
    if bad is False:
        return got
    return where(bad, full_like(got, fill_value), got) if isinstance(bad, Tensor) else full_like(got, fill_value)


def _update_at_arrays(x: Array, keys: tuple, values, mode: str) -> Array:
    """The update at integer index arrays (traced ones too: the positions stay graph values), one per
    leading axis; negative indices count from the end, as JAX normalises them."""
    coords = []
    for axis, k in enumerate(keys):
        k = _a(k) if isinstance(k, Tensor) else Array(np.asarray(k, np.int64))
        k = _cast(k, np.int64)
        coords.append(where(less(k, 0), add(k, x.shape[axis]), k))
    target = getitem(x, tuple(coords))
    vals = broadcast_to(_cast(_a(values), x.dtype) if type(values) not in (int, float, bool)
                        else Array(np.asarray(values, x.dtype)), target.shape)
    if mode not in ("set", "add"):
        vals = _COMBINE[mode](target, vals)
    return _out(F.index_put(x, tuple(coords), vals, accumulate=mode == "add"), is_weak(x))


_COMBINE = {"subtract": subtract, "mul": multiply, "divide": divide, "power": power, "min": minimum, "max": maximum}


def _numpy_index(index):
    """The index as numpy reads it; a traced index array is refused (the read is heard by the trace)."""
    if isinstance(index, tuple):
        return tuple(_numpy_index(i) for i in index)
    if isinstance(index, Tensor):
        return np.asarray(Tensor.tolist(index)) if index.array.ndim else int(Tensor.item(index))
    return index


# ---- misc -------------------------------------------------------------------------------------------

def shape(a):
    return _a(a).shape


def ndim(a):
    return _a(a).ndim


def size(a, axis=None):
    a = _a(a)
    return a.size if axis is None else a.shape[axis]


def astype(x, dtype, copy=False):
    x = _a(x)
    if _dt(dtype) != x.dtype:
        return _cast(x, _dt(dtype))
    if is_weak(x):      # a strong copy (convert_element_type[weak_type=False]); x itself stays weak
        return set_weak(_array.as_array(apply("to_dtype", x, dtype=x.dtype)), False)
    return x


def copy(a, order=None):
    return _a(a)


def real(x):
    return _a(x)


def conj(x):
    return _a(x)


conjugate = conj


def heaviside(x1, x2):
    return where(less(x1, 0), 0.0, where(greater(x1, 0), 1.0, x2))


def interp(x, xp, fp):
    raise NotImplementedError("jnp.interp is not supported by Dagscope")


# ---- the Array's methods and operators ------------------------------------------------------------


def _reflected(fn):
    return lambda self, other: fn(other, self)


def _method_reshape(self, *shape, order="C"):
    return reshape(self, shape[0] if len(shape) == 1 else shape)


def _method_transpose(self, *axes):
    return transpose(self, axes[0] if len(axes) == 1 and not isinstance(axes[0], int) else (axes or None))


def _pow(self, other):
    return power(self, other)


_array.install_methods({
    "__add__": add, "__radd__": _reflected(add), "__sub__": subtract, "__rsub__": _reflected(subtract),
    "__mul__": multiply, "__rmul__": _reflected(multiply), "__truediv__": divide,
    "__rtruediv__": _reflected(divide), "__floordiv__": floor_divide, "__rfloordiv__": _reflected(floor_divide),
    "__mod__": remainder, "__rmod__": _reflected(remainder), "__pow__": _pow, "__rpow__": _reflected(power),
    "__matmul__": matmul, "__rmatmul__": _reflected(matmul), "__neg__": negative, "__pos__": positive,
    "__abs__": abs, "__invert__": invert, "__and__": bitwise_and, "__rand__": _reflected(bitwise_and),
    "__or__": bitwise_or, "__ror__": _reflected(bitwise_or), "__xor__": bitwise_xor,
    "__rxor__": _reflected(bitwise_xor),
    "__eq__": equal, "__ne__": not_equal, "__lt__": less, "__le__": less_equal, "__gt__": greater,
    "__ge__": greater_equal, "__getitem__": getitem,
    "sum": sum, "mean": mean, "var": var, "std": std, "max": max, "min": min, "prod": prod, "argmax": argmax,
    "argmin": argmin, "any": any, "all": all, "cumsum": cumsum, "cumprod": cumprod, "ravel": ravel,
    "flatten": ravel, "squeeze": squeeze, "clip": clip, "dot": dot, "round": round, "astype": astype,
    "reshape": _method_reshape, "transpose": _method_transpose, "swapaxes": swapaxes, "copy": copy,
    "conj": conj, "conjugate": conj, "real": property(real), "imag": property(zeros_like),
    "T": property(lambda self: transpose(self)), "mT": property(matrix_transpose), "take": take,
    "sort": sort, "argsort": argsort, "ptp": ptp, "diagonal": diagonal, "trace": trace, "repeat": repeat,
    "nonzero": nonzero, "view": lambda self, dtype=None: self,
    # JAX arrays have no in-place operators: `x += 1` falls back to `x = x + 1` (a new array; other names
    # for the old one keep it), where the engine Tensor's would call add_
    "__iadd__": add, "__isub__": subtract, "__imul__": multiply, "__itruediv__": divide,
    "__ifloordiv__": floor_divide, "__imod__": remainder, "__ipow__": _pow, "__imatmul__": matmul,
    "__iand__": bitwise_and, "__ior__": bitwise_or, "__ixor__": bitwise_xor,
}, update)

