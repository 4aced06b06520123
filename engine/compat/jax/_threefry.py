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
    if xp is np:                    # XLA's CPU code: its own log1p, multiply-adds fused
        w = -_xla_log1p(x * -x)
        lt = w < f32(5.0)
        w = np.where(lt, w - f32(2.5), np.sqrt(w) - f32(3.0))
        p = np.where(lt, f32(_W_LT_5[0]), f32(_W_GE_5[0]))
        for a, b in zip(_W_LT_5[1:], _W_GE_5[1:]):
            p = fma(p, w, np.where(lt, f32(a), f32(b)))
        return np.where(np.abs(x) == f32(1.0), x * f32(np.inf), p * x)
    w = -xp.log1p(x * -x)
    lt = w < f32(5.0)
    w = xp.where(lt, w - f32(2.5), xp.sqrt(w) - f32(3.0))
    p = xp.where(lt, f32(_W_LT_5[0]), f32(_W_GE_5[0]))
    for a, b in zip(_W_LT_5[1:], _W_GE_5[1:]):
        p = xp.where(lt, f32(a), f32(b)) + p * w
    return xp.where(xp.abs(x) == f32(1.0), x * f32(np.inf), p * x)


# XLA's ElementalIrEmitter::EmitLog1p: below sqrt(2) - 1 Cephes' rational (bit for bit here, with fused
# multiply-adds), above it log(1 + x) with XLA's Cephes/Eigen-style logf (1024 of the 3.0 M arguments
# normal's uniform reaches are a ulp off: the order LLVM fuses its last additions in is not reproduced).
# Over all 2**23 values normal's uniform can take, erf_inv32 differs from JAX 0.10.2's in 238 (at most
# 2 ulp); under jax.jit (jnp ops, no fused multiply-add, numpy's log1p) more differ, by as little.
_LOG1P_NUM = (4.5270000862445199635E-5, 4.9854102823193375972E-1, 6.5787325942061044846E0,
              2.9911919328553073277E1, 6.0949667980987787057E1, 5.7112963590585538103E1, 2.0039553499201281259E1)
_LOG1P_DEN = (1., 1.5062909083469192198E1, 8.3047565967967209469E1, 2.2176239823732856465E2,
              3.0909872225312059774E2, 2.1642788614495947685E2, 6.0118660497603843919E1)
_LOG_P = (7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1, 1.4249322787E-1,
          -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1, 3.3333331174E-1)


def _poly(x, coefficients):
    p = np.zeros_like(x)
    for c in coefficients:
        p = fma(p, x, np.broadcast_to(np.float32(c), x.shape))
    return p


def _xla_log1p(x):
    f32 = np.float32
    x = np.asarray(x, f32)
    small = _xla_small_tail(x, x * x)
    return np.where(np.abs(x) < f32(0.41421356237309504880), small, _xla_log(f32(1) + x))


def _xla_small_tail(x, x2):
    f32 = np.float32
    r = (x * x2) * (_poly(x, _LOG1P_NUM) / _poly(x, _LOG1P_DEN))
    return x + (f32(-0.5) * x2 + r)


def _xla_log(y):
    f32 = np.float32
    with np.errstate(invalid="ignore", divide="ignore"):
        v = np.maximum(y, np.array(0x00800000, np.uint32).view(f32))
        bits = v.view(np.uint32)
        e = f32(1) + ((bits >> np.uint32(23)).astype(np.int32) - 0x7F).astype(f32)
        m = ((bits & np.uint32(0x807FFFFF)) | np.array(0.5, f32).view(np.uint32)).view(f32)
        below = m < f32(0.707106781186547524)
        x = (m - f32(1)) + np.where(below, m, f32(0))
        e = e - np.where(below, f32(1), f32(0))
        x2 = x * x
        x3 = x2 * x
        c = [np.broadcast_to(f32(v), x.shape) for v in _LOG_P]
        p0, p1, p2 = fma(x, c[0], c[1]), fma(x, c[3], c[4]), fma(x, c[6], c[7])
        p0, p1, p2 = fma(p0, x, c[2]), fma(p1, x, c[5]), fma(p2, x, c[8])
        p = fma(fma(p0, x3, p1), x3, p2) * x3
        out = ((x - f32(0.5) * x2) + (p + f32(-2.12194440e-4) * e)) + f32(0.693359375) * e
        out = np.where(y == 0, f32(-np.inf), np.where(y < 0, f32(np.nan), out))
        return np.where(y == np.inf, y, out)

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
