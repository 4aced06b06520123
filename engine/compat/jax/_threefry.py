"""JAX's random bits, bit for bit: Threefry-2x32 (20 rounds, Salmon et al. 2011, Random123) and the way
jax/_src/prng.py draws from it with `jax_threefry_partitionable` on (JAX 0.5's default and 0.10's):
- the bits of an array of shape S are threefry(key, (hi, lo)) of each element's row-major index i
  split into its high and low 32 bits; 32-bit draws are the two output words xor-ed;
- split(key, S) is the pair of output words for each index (so fold_in(key, i) == split(key, n)[i]).

Every function takes `xp`, the array module it computes with: numpy for a concrete key (one eager
constant), jax.numpy inside a trace (a jitted function's key is an argument, so its bits are graph ops
on it). Only operators both modules share are used: a rotation is a wrapping multiply (<< r) or-ed with
a floor division (>> 32 - r), since the jnp layer has no shift.
"""
from __future__ import annotations

import numpy as np

U32 = np.dtype(np.uint32)
_ROTATIONS = ((13, 15, 26, 6), (17, 29, 16, 24))
_PARITY = 0x1BD11BDA


def _u32(xp, value):
    return xp.asarray(value, dtype=U32)


def _rotl(xp, x, r: int):
    if xp is np:
        return (x << np.uint32(r)) | (x >> np.uint32(32 - r))
    return (x * _u32(xp, 1 << r)) | (x // _u32(xp, 1 << (32 - r)))


def threefry2x32(xp, k0, k1, x0, x1):
    """The two output words of Threefry-2x32-20 of counters (x0, x1) under key (k0, k1); uint32 arrays
    (the key words broadcast against the counters)."""
    ks = (k0, k1, k0 ^ k1 ^ _u32(xp, _PARITY))
    x0, x1 = x0 + ks[0], x1 + ks[1]
    for block in range(5):
        for r in _ROTATIONS[block % 2]:
            x0 = x0 + x1
            x1 = _rotl(xp, x1, r) ^ x0
        x0 = x0 + ks[(block + 1) % 3]
        x1 = x1 + ks[(block + 2) % 3] + _u32(xp, block + 1)
    return x0, x1


def _iota_2x32(shape: tuple):
    """The row-major index of every element of `shape`, as (high, low) uint32 words (constants)."""
    n = int(np.prod(shape, dtype=np.int64)) if shape else 1
    if n > 2 ** 63:
        raise NotImplementedError("random bits array of size exceeding 2 ** 64")
    i = np.arange(n, dtype=np.uint64).reshape(shape)
    return (i >> np.uint64(32)).astype(U32), (i & np.uint64(0xFFFFFFFF)).astype(U32)


def _hashed(xp, key, shape: tuple):
    hi, lo = _iota_2x32(shape)
    if xp is not np:
        hi, lo = xp.asarray(hi), xp.asarray(lo)
    return threefry2x32(xp, key[0], key[1], hi, lo)


def split(xp, key, shape: tuple):
    """`jax.random.split(key, shape)`'s key data: shape + (2,) uint32."""
    b0, b1 = _hashed(xp, key, shape)
    return xp.stack([b0, b1], axis=len(shape))


def random_bits(xp, key, bit_width: int, shape: tuple):
    """`jax.random.bits`: uint8/16/32/64 of `shape`."""
    b0, b1 = _hashed(xp, key, shape)
    if bit_width == 64:
        if xp is not np:
            raise NotImplementedError("64-bit random bits inside a trace are not supported by Dagscope")
        return (b0.astype(np.uint64) << np.uint64(32)) | b1.astype(np.uint64)
    bits = b0 ^ b1
    return bits if bit_width == 32 else bits.astype(np.dtype(f"uint{bit_width}"))


def seed_words(seed: int, x64: bool) -> np.ndarray:
    """`jax.random.PRNGKey(seed)`'s data: [seed >> 32, seed & 0xFFFFFFFF]. Without x64 JAX first makes
    the seed an int32 (so 2**32 + 5 seeds as 5, and the high word is 0)."""
    seed = int(seed)
    if not x64:
        seed = int(np.array(seed & 0xFFFFFFFF, np.uint32).view(np.int32))
        return np.array([0, seed & 0xFFFFFFFF], U32)
    seed = int(np.array(seed & 0xFFFFFFFFFFFFFFFF, np.uint64).view(np.int64))
    return np.array([(seed & 0xFFFFFFFFFFFFFFFF) >> 32, seed & 0xFFFFFFFF], U32)


# ---- floats from bits ---------------------------------------------------------------------------

def unit_floats(xp, bits, dtype: np.dtype):
    """[0, 1) from bits as JAX's _uniform: the top mantissa bits under exponent 0, minus 1. (In jnp, with
    no bitcast, the same value is made as (bits >> (nbits - nmant)) * 2**-nmant: exact in both.)"""
    finfo = np.finfo(dtype)
    nbits, nmant = finfo.bits, finfo.nmant
    uint = np.dtype(f"uint{nbits}")
    shift = nbits - nmant
    if xp is np:
        one = np.array(1.0, dtype).view(uint)
        return ((bits >> uint.type(shift)) | one).view(dtype) - dtype.type(1.0)
    return (bits // xp.asarray(1 << shift, dtype=uint)).astype(dtype) * xp.asarray(2.0 ** -nmant, dtype=dtype)


# XLA's ErfInv32 (xla/client/lib/math.cc, chlo's legalization): M. Giles, "Approximating the erfinv
# function", GPU Computing Gems (2010), single precision.
_W_LT_5 = (2.81022636e-08, 3.43273939e-07, -3.5233877e-06, -4.39150654e-06, 0.00021858087, -0.00125372503,
           -0.00417768164, 0.246640727, 1.50140941)
_W_GE_5 = (-0.000200214257, 0.000100950558, 0.00134934322, -0.00367342844, 0.00573950773, -0.0076224613,
           0.00943887047, 1.00167406, 2.83297682)


def erf_inv32(xp, x):
    f32 = np.float32
    w = -xp.log1p(x * -x)
    lt = w < f32(5.0)
    w = xp.where(lt, w - f32(2.5), xp.sqrt(w) - f32(3.0))
    p = xp.where(lt, f32(_W_LT_5[0]), f32(_W_GE_5[0]))
    for a, b in zip(_W_LT_5[1:], _W_GE_5[1:]):
        p = xp.where(lt, f32(a), f32(b)) + p * w
    return xp.where(xp.abs(x) == f32(1.0), x * f32(np.inf), p * x)


def fma(a, b, c):
    """float32 a * b + c rounded once, as XLA's CPU code does (LLVM fuses a multiply and an add into an
    FMA): the product of two float32 is exact in float64; the float64 sum's rounding error (TwoSum)
    settles the one case a second rounding to float32 gets wrong, a float64 sum half-way between two
    float32s."""
    p = a.astype(np.float64) * b
    s = p + c
    bb = s - p
    err = (p - (s - bb)) + (c - bb)
    r = s.astype(np.float32)
    back = r.astype(np.float64)
    other = np.nextafter(r, np.where(s > back, np.float32(np.inf), np.float32(-np.inf))).astype(np.float32)
    tie = (s != back) & (np.abs(s - back) == np.abs(other.astype(np.float64) - s)) & (err != 0)
    up = (other.astype(np.float64) > back) == (err > 0)
    return np.where(tie & up, other, r).astype(np.float32)
