"""TensorFlow's stateless random numbers on the CPU (Philox4x32-10), as Keras 3 draws its initial
weights: `tf.random.stateless_uniform(shape, seed=[s, 0])` and `stateless_normal`, bit for bit.

TF turns the two seed integers into a Philox key and counter (random_ops_util's
GetKeyCounterFromInputSeeds: the seeds as the counter, scrambled by one Philox block under a fixed
key), then fills the output in order from successive 128-bit blocks (the counter incremented as a
128-bit number), four uint32 per block. A uniform float32 is the 23 mantissa bits under exponent 0,
minus 1; a normal is Box-Muller on two of them (sin and cos, u1 floored at 1e-7)."""
from __future__ import annotations

import numpy as np

M0, M1 = np.uint64(0xD2511F53), np.uint64(0xCD9E8D57)
W0, W1 = np.uint32(0x9E3779B9), np.uint32(0xBB67AE85)
MASK = np.uint64(0xFFFFFFFF)


def _rounds(counters: np.ndarray, key: tuple) -> np.ndarray:
    """Philox4x32-10 of an (n, 4) uint32 array of counters under one key -> (n, 4) uint32."""
    c = counters.astype(np.uint64)
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    for _ in range(10):
        p0, p1 = M0 * c[:, 0], M1 * c[:, 2]
        hi0, lo0 = p0 >> np.uint64(32), p0 & MASK
        hi1, lo1 = p1 >> np.uint64(32), p1 & MASK
        c = np.stack([hi1 ^ c[:, 1] ^ k0, lo1, hi0 ^ c[:, 3] ^ k1, lo0], axis=1)
        k0, k1 = (k0 + np.uint64(W0)) & MASK, (k1 + np.uint64(W1)) & MASK
    return c.astype(np.uint32)


class State:
    """A stateful generator's key and counter, read straight from its state (tf.random.Generator's
    Philox state [counter low, counter high, key], int64 each): unlike a stateless seed, not scrambled."""

    def __init__(self, state):
        c0, c1, k = (int(v) & 0xFFFFFFFFFFFFFFFF for v in state)
        self.key = (k & MASK_INT, k >> 32)
        self.counter = [c0 & MASK_INT, c0 >> 32, c1 & MASK_INT, c1 >> 32]


def key_counter(seed) -> tuple[tuple, list]:
    """Philox's key and first counter for a stateless seed pair (or a generator's State)."""
    if isinstance(seed, State):
        return seed.key, seed.counter
    s0, s1 = (int(v) & 0xFFFFFFFFFFFFFFFF for v in seed)
    counter = np.array([[s0 & MASK_INT, s0 >> 32, s1 & MASK_INT, s1 >> 32]], np.uint32)
    mix = _rounds(counter, (0x3EC8F720, 0x02461E29))[0]
    return (int(mix[0]), int(mix[1])), [0, 0, int(mix[2]), int(mix[3])]


MASK_INT = 0xFFFFFFFF


def bits(seed, count: int) -> np.ndarray:
    """The first `count` uint32 of the stream for `seed` (whole blocks of four)."""
    key, start = key_counter(seed)
    blocks = (count + 3) // 4
    low = start[0] | (start[1] << 32)
    high = start[2] | (start[3] << 32)
    return _rounds(_counters(low, high, np.arange(blocks, dtype=np.uint64)), key).reshape(-1)[:count]


def _counters(low: int, high: int, offsets: np.ndarray) -> np.ndarray:
    """(n, 4) uint32 counters: the 128-bit counter (high, low) plus each offset, carried as TF's Skip does."""
    total = [low + int(o) for o in offsets] if low + int(offsets.max(initial=0)) >= 1 << 64 else None
    if total is None:                          # the common case: no carry out of the low half
        lows = np.uint64(low) + offsets.astype(np.uint64)
        highs = np.full(offsets.size, high, np.uint64)
    else:
        lows = np.array([t & 0xFFFFFFFFFFFFFFFF for t in total], np.uint64)
        highs = np.array([(high + (t >> 64)) & 0xFFFFFFFFFFFFFFFF for t in total], np.uint64)
    return np.stack([lows & np.uint64(MASK_INT), lows >> np.uint64(32), highs & np.uint64(MASK_INT),
                     highs >> np.uint64(32)], axis=1)


def _unit_floats(u: np.ndarray) -> np.ndarray:
    return ((u & np.uint32(0x7FFFFF)) | np.uint32(0x3F800000)).view(np.float32) - np.float32(1.0)


def uniform(shape, seed, minval=0.0, maxval=1.0) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    u = _unit_floats(bits(seed, n))
    lo, hi = np.float32(minval), np.float32(maxval)
    return (u * (hi - lo) + lo).astype(np.float32).reshape(shape)


def normal(shape, seed, mean=0.0, stddev=1.0) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    u = _unit_floats(bits(seed, n + (n % 2)))
    sines, cosines = _box_muller(None, None, u[0::2], u[1::2])
    out = np.empty(u.size, np.float32)
    out[0::2], out[1::2] = sines, cosines
    return (out[:n] * np.float32(stddev) + np.float32(mean)).astype(np.float32).reshape(shape)


def _blocks(seed, first: np.ndarray) -> np.ndarray:
    """Philox blocks (n, 4) at counter offsets `first` (uint64) from the seed's start."""
    key, start = key_counter(seed)
    return _rounds(_counters(start[0] | (start[1] << 32), start[2] | (start[3] << 32), first), key)


def _box_muller(x0, x1, u0=None, u1=None):
    """TF's BoxMullerFloat: (sin, cos) * sqrt(-2 log u1), from two uint32 (or their unit floats).
    As its C++ computes them: v1 = 2.0f * M_PI * u in double, rounded to float; logf, sinf and cosf
    are taken in float64 and rounded (glibc's float functions are close to correctly rounded; numpy's
    float32 ones differed from TF's in 4 of 10 values, this in about 1 of 70, by an ulp or two)."""
    u0 = _unit_floats(x0) if u0 is None else u0
    u1 = _unit_floats(x1) if u1 is None else u1
    u0 = np.maximum(u0, np.float32(1e-7))
    v1 = (2.0 * np.pi * u1.astype(np.float64)).astype(np.float32).astype(np.float64)
    radius = np.sqrt(np.float32(-2.0) * np.log(u0.astype(np.float64)).astype(np.float32))
    return np.sin(v1).astype(np.float32) * radius, np.cos(v1).astype(np.float32) * radius


def truncated_normal(shape, seed, mean=0.0, stddev=1.0) -> np.ndarray:
    """TF's stateless_truncated_normal: outputs in groups of four; group g reads Philox blocks from
    counter offset 256 * g, one uint32 at a time in pairs (Box-Muller), keeping values with |x| < 2."""
    n = int(np.prod(shape, dtype=np.int64))
    groups = (n + 3) // 4
    out = np.empty(groups * 4, np.float32)
    per = 4                                       # blocks read per group at first (enough but rarely)
    while True:
        offsets = (np.arange(groups, dtype=np.uint64)[:, None] * np.uint64(256)
                   + np.arange(per, dtype=np.uint64)[None, :]).reshape(-1)
        words = _blocks(seed, offsets).reshape(groups, per * 4)
        values = np.stack(_box_muller(words[:, 0::2], words[:, 1::2]), axis=-1).reshape(groups, -1)
        keep = np.abs(values) < np.float32(2.0)
        if keep.sum(axis=1).min() >= 4:
            break
        per *= 2
    for g in range(groups):
        out[4 * g:4 * g + 4] = values[g][keep[g]][:4]
    return (out[:n] * np.float32(stddev) + np.float32(mean)).astype(np.float32).reshape(shape)


# ---- what only a stateful generator draws (tf.random.Generator): integers and float64 ----------------

def full_int64(shape, seed) -> np.ndarray:
    """uniform_full_int(dtype=int64): each value from two uint32, the first the low half."""
    n = int(np.prod(shape, dtype=np.int64))
    u = bits(seed, 2 * n).astype(np.uint64)
    return (u[0::2] | (u[1::2] << np.uint64(32))).view(np.int64).reshape(shape)


def uniform_int(shape, seed, minval: int, maxval: int, dtype) -> np.ndarray:
    """An integer in [minval, maxval): lo + (bits % range), 32-bit bits for int32, 64-bit for int64."""
    n = int(np.prod(shape, dtype=np.int64))
    span = (int(maxval) - int(minval)) & 0xFFFFFFFFFFFFFFFF
    if np.dtype(dtype).itemsize <= 4:
        u = bits(seed, n).astype(np.uint64) % np.uint64(span & MASK_INT)
    else:
        w = bits(seed, 2 * n).astype(np.uint64)
        u = (w[0::2] | (w[1::2] << np.uint64(32))) % np.uint64(span)
    return (np.int64(minval) + u.view(np.int64)).astype(dtype).reshape(shape)


def _unit_doubles(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    bits64 = ((x0.astype(np.uint64) & np.uint64(0xFFFFF)) << np.uint64(32)) | x1.astype(np.uint64)
    return (bits64 | np.uint64(1023 << 52)).view(np.float64) - 1.0


def uniform64(shape, seed, minval=0.0, maxval=1.0) -> np.ndarray:
    n = int(np.prod(shape, dtype=np.int64))
    u = bits(seed, 2 * n)
    return (_unit_doubles(u[0::2], u[1::2]) * (float(maxval) - float(minval)) + float(minval)).reshape(shape)


def normal64(shape, seed, mean=0.0, stddev=1.0) -> np.ndarray:
    """Box-Muller on two doubles, each made of two uint32: four uint32 per pair of outputs."""
    n = int(np.prod(shape, dtype=np.int64))
    u = bits(seed, 2 * (n + n % 2)).reshape(-1, 4)
    u1 = np.maximum(_unit_doubles(u[:, 0], u[:, 1]), 1e-7)
    v1 = 2.0 * np.pi * _unit_doubles(u[:, 2], u[:, 3])
    radius = np.sqrt(-2.0 * np.log(u1))
    out = np.stack([np.sin(v1) * radius, np.cos(v1) * radius], axis=1).reshape(-1)
    return (out[:n] * float(stddev) + float(mean)).reshape(shape)


def shuffle_order(n: int, seed: int, seed2: int) -> np.ndarray:
    """TF's RandomShuffle of range(n) under op seeds (seed, seed2): Philox keyed by `seed` with `seed2`
    as the counter's high half, one uint32 per swap; position i swaps with i + (u % (n - i))."""
    order = np.arange(n)
    if n <= 1:
        return order
    blocks = (n - 1 + 3) // 4
    words = _rounds(_counters(0, seed2, np.arange(blocks, dtype=np.uint64)),
                    (seed & MASK_INT, (seed >> 32) & MASK_INT)).reshape(-1)
    for i in range(n - 1):
        j = i + int(words[i]) % (n - i)
        order[i], order[j] = order[j], order[i]
    return order
