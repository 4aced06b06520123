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


def key_counter(seed) -> tuple[tuple, list]:
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
    idx = np.arange(blocks, dtype=np.uint64)
    total_low = np.uint64(low) + idx                       # (no carry into the high half for these sizes)
    counters = np.stack([total_low & np.uint64(MASK_INT), total_low >> np.uint64(32),
                         np.full(blocks, high & MASK_INT, np.uint64), np.full(blocks, high >> 32, np.uint64)],
                        axis=1)
    return _rounds(counters, key).reshape(-1)[:count]


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
    u1 = np.maximum(u[0::2], np.float32(1e-7))
    v1 = np.float32(2.0 * np.pi) * u[1::2]
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    out = np.empty(u.size, np.float32)
    out[0::2] = np.sin(v1) * radius
    out[1::2] = np.cos(v1) * radius
    return (out[:n] * np.float32(stddev) + np.float32(mean)).astype(np.float32).reshape(shape)


def _blocks(seed, first: np.ndarray) -> np.ndarray:
    """Philox blocks (n, 4) at counter offsets `first` (uint64) from the seed's start."""
    key, start = key_counter(seed)
    low = np.uint64(start[0] | (start[1] << 32)) + first.astype(np.uint64)
    high = start[2] | (start[3] << 32)
    counters = np.stack([low & np.uint64(MASK_INT), low >> np.uint64(32),
                         np.full(first.size, high & MASK_INT, np.uint64), np.full(first.size, high >> 32, np.uint64)],
                        axis=1)
    return _rounds(counters, key)


def _box_muller(x0: np.ndarray, x1: np.ndarray) -> np.ndarray:
    u1 = np.maximum(_unit_floats(x0), np.float32(1e-7))
    v1 = np.float32(2.0 * np.pi) * _unit_floats(x1)
    radius = np.sqrt(np.float32(-2.0) * np.log(u1))
    return np.stack([np.sin(v1) * radius, np.cos(v1) * radius], axis=-1)


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
        values = _box_muller(words[:, 0::2], words[:, 1::2]).reshape(groups, -1)
        keep = np.abs(values) < np.float32(2.0)
        if keep.sum(axis=1).min() >= 4:
            break
        per *= 2
    for g in range(groups):
        out[4 * g:4 * g + 4] = values[g][keep[g]][:4]
    return (out[:n] * np.float32(stddev) + np.float32(mean)).astype(np.float32).reshape(shape)
