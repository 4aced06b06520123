"""`jax.random`: JAX's counter-based PRNG, bit for bit (Threefry-2x32, _threefry.py).

A key is data, not state: `PRNGKey(0)` is the uint32 array [0, 0] (a "raw" key), `key(0)` the same
data as a typed key array (`key<fry>`, printed as JAX prints it). Every draw is a pure function of
its key, so a seeded JAX program prints JAX's numbers. With a concrete key a draw is computed in
numpy and is one constant array (a random value is a constant for jax.grad); with a key traced by
jax.jit (an argument of the jitted function) the draw is staged as jnp ops on the key, so the
jitted function gives new numbers for a new key.

What is bit for bit with JAX 0.10.2 on CPU: keys, split, fold_in, bits, uniform (float32; with bounds other than
[0, 1) only with a concrete key, whose XLA fused multiply-add is reproduced), randint, bernoulli,
permutation, choice without p. normal's
erf_inv (float32 only): 238 of the 2**23 uniforms it can draw come out up to 2 ulp off with a concrete
key; under jax.jit (jnp ops: no fused multiply-add, numpy's log1p) more, by as little. Not here: normal
in float64, choice with p, randint / permutation with a traced key, the other samplers.
"""
from __future__ import annotations

import math

import numpy as np

from engine.compat.jax import _threefry as fry
from engine.compat.jax import numpy as jnp
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import Array, canonical, default_float, default_int, to_array, x64
from engine.compat.jax.tracing import traced
from engine.compat.jax.tree_util import register_pytree_node
from engine.errors import UnsupportedError
from engine.tensor import Tensor

U32 = fry.U32


class _KeyDtype:
    """The dtype of a typed key array: prints as `key<fry>`."""
    name = "key<fry>"

    def __repr__(self) -> str:
        return self.name

    __str__ = __repr__

    def __eq__(self, other) -> bool:
        return isinstance(other, _KeyDtype)

    def __hash__(self) -> int:
        return hash(self.name)


class KeyArray:
    """A typed key array (`jax.random.key(0)`): shape S over uint32 data of shape S + (2,)."""

    dtype = _KeyDtype()

    def __init__(self, data):
        self._data = data

    @property
    def shape(self) -> tuple:
        return tuple(self._data.shape[:-1])

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of unsized object")
        return self.shape[0]

    def __getitem__(self, index):
        if not isinstance(index, tuple):
            index = (index,)
        return KeyArray(self._data[index + (slice(None),)])

    def __iter__(self):
        if not self.shape:
            raise TypeError("iteration over a 0-d key array")
        return (self[i] for i in range(self.shape[0]))

    def reshape(self, *shape):
        shape = shape[0] if len(shape) == 1 and isinstance(shape[0], (tuple, list)) else shape
        return KeyArray(jnp.reshape(self._data, tuple(shape) + (2,)))

    def __repr__(self) -> str:
        if traced(self._data):
            return f"JitTracer(key<fry>[{','.join(map(str, self.shape))}])"
        return f"Array({self.shape}, dtype=key<fry>) overlaying:\n{np.asarray(self._data.array)}"

    __str__ = __repr__


register_pytree_node(KeyArray, lambda k: ((k._data,), None), lambda _, children: KeyArray(children[0]))


# ---- keys ---------------------------------------------------------------------------------------

def _seed(seed):
    if isinstance(seed, KeyArray):
        raise TypeError("PRNG key seed must be an integer; got a key array")
    if isinstance(seed, Tensor):
        if traced(seed):
            raise UnsupportedError("jax.random.PRNGKey of a traced seed is not supported by Dagscope: "
                                   "make the key outside the jitted function and pass it in")
        arr = np.asarray(seed.array)
        if arr.shape:
            raise TypeError(f"PRNG key seed must be a scalar; got {seed!r}.")
        if arr.dtype.kind not in "iu":
            raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
        seed = int(arr)
    elif isinstance(seed, (bool, float, complex)) or not isinstance(seed, (int, np.integer)):
        if isinstance(seed, np.ndarray) and seed.shape == () and seed.dtype.kind in "iu":
            seed = int(seed)
        else:
            raise TypeError(f"PRNG key seed must be an integer; got {seed!r}")
    return fry.seed_words(int(seed), x64())


def PRNGKey(seed, *, impl=None) -> Array:
    """A raw key: uint32[2] = [seed >> 32, seed & 0xFFFFFFFF] (the seed an int32 unless x64 is on)."""
    _impl(impl)
    return Array(_seed(seed))


def key(seed, *, impl=None) -> KeyArray:
    _impl(impl)
    return KeyArray(Array(_seed(seed)))


def _impl(impl) -> None:
    if impl not in (None, "threefry2x32", "threefry"):
        raise UnsupportedError(f"jax.random PRNG implementation {impl!r} is not supported by Dagscope "
                               "(only threefry2x32, JAX's default)")


def key_data(keys) -> Array:
    if isinstance(keys, KeyArray):
        return to_array(keys._data)
    return to_array(_raw(keys, "key_data"))


def wrap_key_data(key_bits_array, *, impl=None) -> KeyArray:
    _impl(impl)
    data = to_array(key_bits_array)
    if data.dtype != U32 or not data.shape or data.shape[-1] != 2:
        raise TypeError(f"wrap_key_data expects uint32 key data of shape (..., 2); got "
                        f"{data.dtype.name}{list(data.shape)}")
    return KeyArray(data)


def key_impl(keys) -> str:
    return "fry"


def _raw(k, where: str):
    """The uint32 data (..., 2) of a raw or typed key, as an Array."""
    if isinstance(k, KeyArray):
        return k._data
    data = to_array(k) if not isinstance(k, Tensor) else k
    if data.dtype != U32 or not data.shape or data.shape[-1] != 2:
        raise TypeError(f"JAX encountered invalid PRNG key data: expected key_data.dtype = uint32 and "
                        f"key_data.shape[-1] = 2; got dtype={data.dtype.name}, shape={data.shape}")
    return data


def _single(k, where: str):
    """One key's data and the array module that computes with it (numpy, or jnp when traced)."""
    data = _raw(k, where)
    if data.shape != (2,):
        shape = tuple(data.shape[:-1]) if isinstance(k, KeyArray) else tuple(data.shape)
        raise ValueError(f"{where} accepts a single key, but was given a key array of shape {shape} != (). "
                         "Use jax.vmap for batching.")
    if traced(data) or data._requires_grad:
        return data, jnp
    return np.asarray(data.array), np


def _wrap_like(k, data):
    data = Array(data) if isinstance(data, np.ndarray) else data
    return KeyArray(data) if isinstance(k, KeyArray) else data


def _shape(shape) -> tuple:
    if shape is None:
        return ()
    if isinstance(shape, (int, np.integer)):
        return (int(shape),)
    return tuple(int(s) for s in shape)


def split(key, num=2):
    data, xp = _single(key, "split")
    return _wrap_like(key, fry.split(xp, data, _shape(num)))


def fold_in(key, data):
    """threefry(key, (0, uint32(data))): the same words as split(key, n)[data] (partitionable JAX)."""
    k, xp = _single(key, "fold_in")
    if isinstance(data, Tensor) and traced(data):
        raise UnsupportedError("jax.random.fold_in of traced data is not supported by Dagscope")
    word = int(np.asarray(data.array if isinstance(data, Tensor) else data)) & 0xFFFFFFFF
    b0, b1 = fry.threefry2x32(xp, k[0], k[1], xp.asarray([0], dtype=U32), xp.asarray([word], dtype=U32))
    return _wrap_like(key, xp.concatenate([b0, b1]))


def bits(key, shape=(), dtype=None):
    k, xp = _single(key, "bits")
    dtype = np.dtype(dtype or (np.uint64 if x64() else np.uint32))
    if dtype.kind != "u":
        raise TypeError(f"dtype argument to `bits` must be an unsigned int dtype, got {dtype}")
    return _out(fry.random_bits(xp, k, dtype.itemsize * 8, _shape(shape)))


def _out(value) -> Array:
    """A numpy result (a 0-d one comes back as a numpy scalar) as an Array; a jnp one as it is."""
    if isinstance(value, (np.ndarray, np.generic)):
        return Array(np.array(value, order="C"))
    return value


def _float_dtype(dtype, where: str) -> np.dtype:
    # float64 is float32 unless jax_enable_x64 is on, as JAX canonicalizes a requested dtype
    dtype = canonical(np.dtype(getattr(dtype, "dtype", dtype))) if dtype is not None else default_float()
    if dtype.kind != "f":
        raise ValueError(f"dtype argument to `{where}` must be a float dtype, got {dtype}")
    return dtype


def _unit(k, xp, shape: tuple, dtype: np.dtype):
    nbits = np.finfo(dtype).bits
    return fry.unit_floats(xp, fry.random_bits(xp, k, nbits, shape), dtype)


def uniform(key, shape=(), dtype=None, minval=0.0, maxval=1.0):
    """JAX's _uniform: max(minval, floats * (maxval - minval) + minval), floats in [1, 2) minus 1."""
    k, xp = _single(key, "uniform")
    dtype = _float_dtype(dtype, "uniform")
    shape = _shape(shape)
    floats = _unit(k, xp, shape, dtype)
    if xp is np and not any(isinstance(v, Tensor) for v in (minval, maxval)):
        lo, hi = np.asarray(minval, dtype), np.asarray(maxval, dtype)
        return _out(np.maximum(lo, fry.fma(floats, hi - lo, np.broadcast_to(lo, floats.shape))
                               if dtype == np.float32 else floats * (hi - lo) + lo).astype(dtype))
    lo, hi = jnp.asarray(minval, dtype=dtype), jnp.asarray(maxval, dtype=dtype)
    return jnp.maximum(lo, jnp.asarray(floats) * (hi - lo) + lo)


def normal(key, shape=(), dtype=None):
    """JAX's _normal_real: sqrt(2) * erf_inv(uniform(key, shape, dtype, nextafter(-1, 0), 1))."""
    k, xp = _single(key, "normal")
    dtype = _float_dtype(dtype, "normal")
    if dtype != np.float32:
        raise UnsupportedError(f"jax.random.normal with dtype {dtype} is not supported by Dagscope "
                               "(float32 only: XLA's erf_inv is matched in single precision)")
    shape = _shape(shape)
    floats = _unit(k, xp, shape, dtype)
    lo, hi = np.nextafter(np.float32(-1), np.float32(0)), np.float32(1)
    if xp is np:
        u = np.maximum(lo, floats * (hi - lo) + lo)        # (hi - lo) is 2.0: exact, fused or not
        return _out(np.float32(np.sqrt(2)) * fry.erf_inv32(np, u))
    u = jnp.maximum(lo, floats * (hi - lo) + lo)
    return np.float32(np.sqrt(2)) * fry.erf_inv32(jnp, u)


def bernoulli(key, p=0.5, shape=None):
    """uniform(key, shape, p's float dtype) < p."""
    dtype = np.dtype(p.dtype) if isinstance(p, Tensor) else default_float()
    shape = tuple(np.shape(p.array if isinstance(p, Tensor) else p)) if shape is None else _shape(shape)
    u = uniform(key, shape, dtype)
    if isinstance(u, Array) and not isinstance(p, Tensor) and not traced(u):
        return _out(u.array < np.asarray(p, dtype))
    return jnp.less(u, jnp.asarray(p, dtype=dtype))


def randint(key, shape, minval, maxval, dtype=None):
    """JAX's _randint: two draws of bits (keys split(key)), the high one times 2**nbits mod span plus
    the low one, mod span (span = maxval - minval, 1 when empty)."""
    dtype = np.dtype(dtype) if dtype is not None else default_int()
    if dtype.kind not in "iu":
        raise TypeError(f"randint only accepts integer dtypes, got {dtype}")
    k, xp = _single(key, "randint")
    if xp is not np or any(isinstance(v, Tensor) and traced(v) for v in (minval, maxval)):
        raise UnsupportedError("jax.random.randint inside jax.jit with a traced key or bounds is not supported "
                               "by Dagscope yet: draw it outside the jitted function")
    shape = _shape(shape)
    nbits = dtype.itemsize * 8
    info = np.iinfo(dtype)
    mn = np.asarray(minval.array if isinstance(minval, Tensor) else minval)
    mx = np.asarray(maxval.array if isinstance(maxval, Tensor) else maxval)
    mn, mx = mn.astype(np.int64) if mn.dtype.kind != "f" else mn.astype(np.int64), mx.astype(np.int64)
    out_of_range = mx > info.max
    mn, mx = np.clip(mn, info.min, info.max), np.clip(mx, info.min, info.max)
    mn = np.broadcast_to(mn, shape) if mn.ndim else mn
    mx = np.broadcast_to(mx, shape) if mx.ndim else mx
    k1, k2 = fry.split(np, k, (2,))
    higher, lower = fry.random_bits(np, k1, nbits, shape), fry.random_bits(np, k2, nbits, shape)
    unsigned = np.dtype(f"uint{nbits}")
    span = (mx - mn).astype(unsigned)
    span = np.where(mx <= mn, unsigned.type(1), span)
    span = np.where(out_of_range & (mx > mn), span + unsigned.type(1), span).astype(unsigned)
    with np.errstate(divide="ignore", over="ignore"):
        safe = np.where(span == 0, unsigned.type(1), span)      # XLA: x rem 0 = x
        rem = lambda a, b: np.where(span == 0, a, a % safe).astype(unsigned)  # noqa: E731
        multiplier = rem(np.asarray(2 ** (nbits // 2), unsigned), span)
        multiplier = rem((multiplier * multiplier).astype(unsigned), span)
        offset = (rem(higher, span) * multiplier).astype(unsigned) + rem(lower, span)
        offset = rem(offset.astype(unsigned), span)
    return _out((mn.astype(dtype) + offset.astype(dtype)).astype(dtype))


def _shuffle(key, x, axis: int):
    """JAX's _shuffle: sort by random 32-bit keys, ceil(3 ln(size) / ln(2**32 - 1)) rounds."""
    k, xp = _single(key, "permutation")
    if xp is not np:
        raise UnsupportedError("jax.random.permutation with a traced key is not supported by Dagscope yet")
    rounds = int(np.ceil(3 * np.log(max(1, x.size)) / np.log(np.iinfo(np.uint32).max)))
    for _ in range(rounds):
        k, subkey = fry.split(np, k, (2,))
        sort_keys = fry.random_bits(np, subkey, 32, tuple(x.shape))
        order = np.argsort(sort_keys, axis=axis, kind="stable")
        x = jnp.take_along_axis(x, Array(order.astype(np.int32)), axis)
    return x


def permutation(key, x, axis=0, independent=False):
    if isinstance(x, (int, np.integer)) or (isinstance(x, Tensor) and x.ndim == 0):
        n = int(x.array if isinstance(x, Tensor) else x)
        return _shuffle(key, jnp.arange(n), 0)
    x = jnp.asarray(x)
    axis = axis % x.ndim
    if independent or x.ndim == 1:
        return _shuffle(key, x, axis)
    ind = _shuffle(key, jnp.arange(x.shape[axis]), 0)
    return jnp.take(x, ind, axis=axis)


def choice(key, a, shape=(), replace=True, p=None, axis=0):
    shape = _shape(shape)
    scalar = isinstance(a, (int, np.integer)) or (isinstance(a, Tensor) and a.ndim == 0)
    arr = None if scalar else jnp.asarray(a)
    n = int(a.array if isinstance(a, Tensor) else a) if scalar else arr.shape[axis]
    n_draws = math.prod(shape)
    if n_draws and n <= 0:
        raise ValueError("a must be greater than 0 unless no samples are taken")
    if not replace and n_draws > n:
        raise ValueError(f"Cannot take a larger sample (size {n_draws}) than population (size {n}) when 'replace=False'")
    if p is not None:
        raise UnsupportedError("jax.random.choice with p= is not supported by Dagscope yet")
    if replace:
        ind = randint(key, shape, 0, n)
        return ind if scalar else jnp.take(arr, ind, axis=axis)
    if scalar:
        return jnp.reshape(permutation(key, n)[:n_draws], shape)
    perm = permutation(key, arr, axis)
    taken = jnp.take(perm, jnp.arange(n_draws), axis=axis)
    return jnp.reshape(taken, arr.shape[:axis] + shape + arr.shape[axis + 1:])


__getattr__ = unsupported_names("jax.random", globals())
