"""PyTorch's CPU random numbers, reproduced: after torch.manual_seed(s), torch.rand/randn/randint/randperm,
Tensor.uniform_/normal_, nn.init and dropout draw the numbers PyTorch draws on a CPU.

PyTorch's generator is a 32-bit Mersenne Twister seeded with init_genrand (numpy's MT19937 with its legacy
seeding is the same engine); each distribution below follows the ATen CPU kernel named beside it. Bit for
bit, except: the float32 normal kernel evaluates log/sin/cos with AVX2 polynomial approximations (matched
to about 1e-6 relative), and float64 uniforms may differ in the last bit (see uniform).

The hot distributions (uniform, normal, permutation, bernoulli(p)) run in C when engine/native loaded
(fastops.c's mt_*: numpy's MT19937 drawn through its C interface, each value computed as the numpy
path computes it); the numpy methods (`_uniform_numpy` ...) stay the reference the C loops are tested
against bit for bit (tests/engine/native/test_native_random.py), and run where the C module did not
load or where it does not match them on this machine's libm (`native_status`)."""
from __future__ import annotations

import math

import numpy as np

from engine import native
from engine.compat.torch_class_names import TorchClassRepr
from engine.tensor import Tensor

DEFAULT_SEED = 67280421310721   # default_rng_seed_val: a new torch.Generator()'s seed (PyTorch seeds its default
                               # generator at random at startup; Dagscope uses this seed, so runs repeat)
_F32, _F64 = np.dtype(np.float32), np.dtype(np.float64)
_MASK24, _MASK53 = np.uint64((1 << 24) - 1), np.uint64((1 << 53) - 1)
_STATE_BYTES = 5056


class Generator(metaclass=TorchClassRepr):
    """torch.Generator: a Mersenne Twister plus the cached second value of the last Box-Muller pair."""

    def __init__(self, device="cpu"):
        self.device = device
        self.manual_seed(DEFAULT_SEED)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self._bits = np.random.MT19937()
        self._bits._legacy_seeding(self._seed & 0xFFFFFFFF)      # mt19937(seed) keeps the low 32 bits
        self._next_normal = None
        return self

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self):
        """The whole generator state as a uint8 tensor of 5056 bytes (the size of PyTorch's; the layout
        is Dagscope's own), for set_state."""
        mt = self._bits.state["state"]
        header = np.array([self._seed % (1 << 64), mt["pos"], self._next_normal is not None], dtype=np.uint64)
        cached = np.array([self._next_normal or 0.0], dtype=np.float64)
        raw = header.tobytes() + cached.tobytes() + mt["key"].astype(np.uint32).tobytes()
        return Tensor(np.frombuffer(raw.ljust(_STATE_BYTES, b"\0"), dtype=np.uint8).copy())

    def set_state(self, state) -> "Generator":
        raw = np.asarray(getattr(state, "array", state), dtype=np.uint8).tobytes()
        if len(raw) != _STATE_BYTES:
            raise RuntimeError(f"Expected either a ByteTensor of size {_STATE_BYTES} ... (got {len(raw)} bytes)")
        seed, pos, has_normal = np.frombuffer(raw[:24], dtype=np.uint64).tolist()
        cached = float(np.frombuffer(raw[24:32], dtype=np.float64)[0])
        key = np.frombuffer(raw[32:32 + 624 * 4], dtype=np.uint32).copy()
        self._seed = int(seed)
        self._bits.state = {"bit_generator": "MT19937", "state": {"key": key, "pos": int(pos)}}
        self._next_normal = cached if has_normal else None
        return self

    def __repr__(self) -> str:
        return f"<torch._C.Generator object at {id(self):#x}>"      # what print(torch.manual_seed(0)) shows

    def seed(self) -> int:
        """A new nondeterministic seed, set and returned (torch.seed / Generator.seed)."""
        value = int(np.random.SeedSequence().entropy % (1 << 63))
        self.manual_seed(value)
        return value

    # ---- raw bits: CPUGeneratorImpl::random() and random64() ----
    def _u32(self, n: int) -> np.ndarray:
        return self._bits.random_raw(int(n)).astype(np.uint64)

    def _u64(self, n: int) -> np.ndarray:
        pairs = self._u32(2 * n)
        return (pairs[0::2] << np.uint64(32)) | pairs[1::2]       # make64BitsFrom32Bits(hi, lo)

    def _unit(self, n: int, dtype) -> np.ndarray:
        """uniform_real_distribution(0, 1): 24 random bits for float32 (and narrower), 53 for float64."""
        if np.dtype(dtype) == _F64:
            return (self._u64(n) & _MASK53).astype(np.float64) * 2.0 ** -53
        return (self._u32(n) & _MASK24).astype(np.float32) * np.float32(2.0 ** -24)

    # ---- distributions, with numpy's Generator method names (the engine calls rng().uniform(...)) ----
    def uniform(self, low=0.0, high=1.0, size=(), dtype=_F32, into=None) -> np.ndarray:
        """uniform_kernel: x * (to - from) + from in the tensor's dtype, the multiply-add fused (the
        kernel is compiled with FMA): emulated in a wider type, exact for float32; for float64 a long
        double leaves a rare last-bit difference. `into`: an array the C loop may fill and return
        instead of a new one (a tensor's own storage: see _into)."""
        if _native is None:
            return self._uniform_numpy(low, high, size, dtype)
        return self._uniform_c(_native, low, high, size, dtype, into)

    def _uniform_c(self, fast, low, high, size, dtype, into=None) -> np.ndarray:
        work = _F64 if np.dtype(dtype) == _F64 else _F32
        out = _into(into, size, work)
        # the bit generator's bitgen_t, read at each call (DataLoader's workers swap `_bits`)
        fast.mt_uniform(self._bits.capsule, out, float(work.type(low)), float(work.type(high)))
        return out

    def _uniform_numpy(self, low=0.0, high=1.0, size=(), dtype=_F32) -> np.ndarray:
        work = _F64 if np.dtype(dtype) == _F64 else _F32
        wide = np.longdouble if work == _F64 else np.float64
        low, high = work.type(low), work.type(high)
        x = self._unit(_count(size), work)
        return (x.astype(wide) * wide(high - low) + wide(low)).astype(work).reshape(size)

    def random(self, size=(), dtype=_F32) -> np.ndarray:
        return self.uniform(0.0, 1.0, size, dtype)

    def normal(self, loc=0.0, scale=1.0, size=(), dtype=_F32, into=None) -> np.ndarray:
        """normal_kernel: Box-Muller over 16-value blocks for 16 or more values (the last block redrawn
        when the count is not a multiple of 16), else one double normal_distribution value at a time.
        `into` as for uniform."""
        if _native is None or _count(size) < 16:
            return self._normal_numpy(loc, scale, size, dtype)
        return self._normal_c(_native, loc, scale, size, dtype, into)

    def _normal_c(self, fast, loc, scale, size, dtype, into=None) -> np.ndarray:
        out = _into(into, size, _F64 if np.dtype(dtype) == _F64 else _F32)
        fast.mt_normal(self._bits.capsule, out, float(loc), float(scale))
        return out

    def _normal_numpy(self, loc=0.0, scale=1.0, size=(), dtype=_F32) -> np.ndarray:
        n = _count(size)
        work = _F64 if np.dtype(dtype) == _F64 else _F32
        if n >= 16:
            data = self._unit(n, work).astype(np.float64)
            whole = n // 16 * 16
            data[:whole] = _box_muller(data[:whole].reshape(-1, 16)).reshape(-1)
            if n % 16:
                data[n - 16:] = _box_muller(self._unit(16, work).astype(np.float64).reshape(1, 16)).reshape(-1)
            values = data
        else:
            values = np.array([self._normal_double() for _ in range(n)], dtype=np.float64)
        return (values * float(scale) + float(loc)).astype(work).reshape(size)

    def standard_normal(self, size=(), dtype=_F32) -> np.ndarray:
        return self.normal(0.0, 1.0, size, dtype)

    def _normal_double(self) -> float:
        """at::normal_distribution<double>: a Box-Muller pair; the sine half is kept for the next call."""
        if self._next_normal is not None:
            value, self._next_normal = self._next_normal, None
            return value
        u1, u2 = self._unit(2, _F64)
        radius = math.sqrt(-2.0 * math.log1p(-u2))
        theta = 2.0 * math.pi * u1
        self._next_normal = radius * math.sin(theta)
        return radius * math.cos(theta)

    def integers(self, low, high=None, size=()) -> np.ndarray:
        """random_from_to: (bits % range) + low, from 64 bits when the range needs more than 32."""
        if high is None:
            low, high = 0, low
        span = int(high) - int(low)
        n = _count(size)
        bits = self._u64(n) if span >= 1 << 32 else self._u32(n)
        return ((bits % np.uint64(span)).astype(np.int64) + int(low)).reshape(size)

    def permutation(self, n: int) -> np.ndarray:
        """randperm_cpu: Fisher-Yates with random() % (n - i)."""
        if _native is None:
            return self._permutation_numpy(n)
        return self._permutation_c(_native, n)

    def _permutation_c(self, fast, n: int) -> np.ndarray:
        order = np.empty(max(int(n), 0), dtype=np.int64)
        fast.mt_permutation(self._bits.capsule, order)
        return order

    def _permutation_numpy(self, n: int) -> np.ndarray:
        n = int(n)
        order = list(range(n))
        for i, draw in enumerate(self._u32(max(n - 1, 0)).tolist()):     # Python ints: a fast loop
            j = i + draw % (n - i)
            order[i], order[j] = order[j], order[i]
        return np.array(order, dtype=np.int64)

    def bernoulli(self, p: float, size=()) -> np.ndarray:
        """bernoulli_(p) with a number p (the default, non-MKL kernel): a double uniform below p."""
        if _native is None or type(p) is not float:
            return self._bernoulli_numpy(p, size)
        return self._bernoulli_c(_native, p, size)

    def _bernoulli_c(self, fast, p: float, size=()) -> np.ndarray:
        out = np.empty(size, dtype=np.bool_)
        fast.mt_bernoulli(self._bits.capsule, out, p)
        return out

    def _bernoulli_numpy(self, p: float, size=()) -> np.ndarray:
        return (self._unit(_count(size), _F64) < p).reshape(size)

    def bernoulli_tensor(self, probs: np.ndarray) -> np.ndarray:
        """torch.bernoulli(probs): per element, a uniform of the probabilities' precision below it."""
        work = _F64 if probs.dtype == _F64 else _F32
        return self._unit(probs.size, work).reshape(probs.shape) < probs

    def exponential(self, size=(), lambd: float = 1.0) -> np.ndarray:
        """exponential_: -log1p(-u) / lambda from double uniforms (float64 values; the caller casts)."""
        return -np.log1p(-self._unit(_count(size), _F64)).reshape(size) / lambd

    def multinomial(self, probs: np.ndarray, num_samples: int, replacement: bool) -> np.ndarray:
        """torch.multinomial on rows of weights. Without replacement (or for one sample): the largest
        weight / Exp(1) draws (PyTorch's exponential trick, so topk order); with replacement: a double
        uniform per sample searched in the normalised cumulative weights, row after row."""
        rows = probs.reshape(-1, probs.shape[-1])
        if not replacement or num_samples == 1:
            noise = self.exponential(rows.shape).astype(rows.dtype)
            keys = rows / noise
            order = np.argsort(-keys, axis=1, kind="stable")[:, :num_samples]
        else:
            order = np.empty((rows.shape[0], num_samples), dtype=np.int64)
            for i, row in enumerate(rows):
                cumulative = np.cumsum(row.astype(np.float64))
                cumulative /= cumulative[-1]
                cumulative[-1] = 1.0
                order[i] = np.searchsorted(cumulative, self._unit(num_samples, _F64), side="left")
        return order.astype(np.int64).reshape(probs.shape[:-1] + (num_samples,))

    def random_int64(self) -> int:
        """torch.empty((), dtype=torch.int64).random_(): 64 bits modulo 2**63."""
        return int(self._u64(1)[0] % np.uint64(1 << 63))


def _box_muller(blocks: np.ndarray) -> np.ndarray:
    """normal_fill_16 on each row of 16 uniforms: the first 8 become cosines, the last 8 sines."""
    radius = np.sqrt(-2.0 * np.log(1.0 - blocks[:, :8]))
    theta = 2.0 * np.pi * blocks[:, 8:]
    return np.concatenate([radius * np.cos(theta), radius * np.sin(theta)], axis=1)


def _into(into, size, dtype) -> np.ndarray:
    """`into` when the draws can go straight there (a writable C-contiguous ndarray of the draws' dtype
    and shape), else a new array: nn.init's in-place kernels skip a copy of every weight."""
    if (type(into) is np.ndarray and into.dtype == dtype and into.flags.c_contiguous and into.flags.writeable
            and into.shape == (tuple(size) if np.ndim(size) else (int(size),))):
        return into
    return np.empty(size, dtype=dtype)


def _count(size) -> int:
    return int(np.prod(size, dtype=np.int64)) if np.ndim(size) else int(size)


def _native_loops():
    """fastops' loops when they draw what the numpy methods draw here: both read the same MT19937,
    and the normal's log/sin/cos are libm's in C while numpy's float64 loops may be its own SIMD
    ones on some CPUs (AVX-512), so a probe of each compares them first."""
    global native_status
    fast = native.loaded()
    if fast is None:
        native_status = f"numpy: engine/native {native.status()}"
        return None
    probes = (("uniform", (-2.0, 3.0, 1037, _F32)), ("uniform", (-2.0, 3.0, 1037, _F64)),
              ("normal", (0.5, 2.0, 4103, _F32)), ("normal", (0.5, 2.0, 4103, _F64)),
              ("permutation", (517,)), ("bernoulli", (0.3, 1037)))
    for name, args in probes:
        reference, probe = Generator().manual_seed(1), Generator().manual_seed(1)
        expected = getattr(reference, f"_{name}_numpy")(*args)
        got = getattr(probe, f"_{name}_c")(fast, *args)
        if got.dtype != expected.dtype or got.tobytes() != expected.tobytes():
            native_status = f"numpy: fastops' {name} differs from numpy's on this machine"
            return None
    native_status = "C (engine/native/fastops.c)"
    return fast


native_status = "not probed yet"
_native = None
_native = _native_loops()
default_generator = Generator()
