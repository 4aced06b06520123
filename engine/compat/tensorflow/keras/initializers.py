"""`keras.initializers`: Keras 3's initializers with its formulas (fans, scales, the truncated
normal's 0.8796 correction) and its random numbers: an unseeded initializer takes its seed from
Python's `random` when it is made (Keras' make_default_seed: randint(1, 10**9), so a layer made
after `keras.utils.set_random_seed(n)` gets Keras' seed), and draws from TensorFlow's stateless
Philox stream with it (philox.py) — uniform values are TF's bit for bit, normal and truncated
normal ones (GlorotNormal, HeNormal, LecunNormal, TruncatedNormal) to the last float32 bits of
sin/cos/log. Like Keras', an initializer returns a tensor."""
from __future__ import annotations

import math
import random

import numpy as np

from engine.compat.tensorflow import dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import philox
from engine.errors import UnsupportedError


def make_default_seed() -> int:
    """Keras 3's seed for an unseeded initializer or seed generator (from Python's random module)."""
    return random.randint(1, int(1e9))


def compute_fans(shape: tuple) -> tuple[float, float]:
    if len(shape) == 0:
        return 1.0, 1.0
    if len(shape) == 1:
        return float(shape[0]), float(shape[0])
    if len(shape) == 2:
        return float(shape[0]), float(shape[1])
    receptive = math.prod(shape[:-2])
    return float(shape[-2] * receptive), float(shape[-1] * receptive)


class Initializer:
    def __call__(self, shape, dtype=None):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}


class Zeros(Initializer):
    def __call__(self, shape, dtype=None):
        return EagerTensor(np.zeros(tuple(shape), dtypes.as_dtype(dtype or "float32").np))


class Ones(Initializer):
    def __call__(self, shape, dtype=None):
        return EagerTensor(np.ones(tuple(shape), dtypes.as_dtype(dtype or "float32").np))


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return EagerTensor(np.full(tuple(shape), self.value, dtypes.as_dtype(dtype or "float32").np))


class _Random(Initializer):
    def _seed(self, seed) -> None:
        self.seed = int(seed) if seed is not None else make_default_seed()


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        self._seed(seed)

    def __call__(self, shape, dtype=None):
        out = philox.normal(tuple(shape), [self.seed, 0], self.mean, self.stddev)
        return EagerTensor(out.astype(dtypes.as_dtype(dtype or "float32").np))


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval = minval, maxval
        self._seed(seed)

    def __call__(self, shape, dtype=None):
        out = philox.uniform(tuple(shape), [self.seed, 0], self.minval, self.maxval)
        return EagerTensor(out.astype(dtypes.as_dtype(dtype or "float32").np))


class TruncatedNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev = mean, stddev
        self._seed(seed)

    def __call__(self, shape, dtype=None):
        out = philox.truncated_normal(tuple(shape), [self.seed, 0], self.mean, self.stddev)
        return EagerTensor(out.astype(dtypes.as_dtype(dtype or "float32").np))


class VarianceScaling(_Random):
    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if distribution == "normal":
            distribution = "truncated_normal"
        self.scale, self.mode, self.distribution = float(scale), mode, distribution
        self._seed(seed)

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        if self.distribution == "truncated_normal":
            out = philox.truncated_normal(shape, [self.seed, 0], 0.0, math.sqrt(scale) / 0.87962566103423978)
        elif self.distribution == "untruncated_normal":
            out = philox.normal(shape, [self.seed, 0], 0.0, math.sqrt(scale))
        else:
            limit = math.sqrt(3.0 * scale)
            out = philox.uniform(shape, [self.seed, 0], -limit, limit)
        return EagerTensor(out.astype(dtypes.as_dtype(dtype or "float32").np))


class GlorotUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "uniform", seed)


class GlorotNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_avg", "truncated_normal", seed)


class HeUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "uniform", seed)


class HeNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(2.0, "fan_in", "truncated_normal", seed)


class LecunUniform(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "uniform", seed)


class LecunNormal(VarianceScaling):
    def __init__(self, seed=None):
        super().__init__(1.0, "fan_in", "truncated_normal", seed)


class Orthogonal(_Random):
    def __init__(self, gain=1.0, seed=None):
        self.gain = gain
        self._seed(seed)

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = philox.normal((max(rows, cols), min(rows, cols)), [self.seed, 0]).astype(np.float64)
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return EagerTensor((self.gain * q.reshape(shape)).astype(dtypes.as_dtype(dtype or "float32").np))


class Identity(Initializer):
    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        return EagerTensor((self.gain * np.eye(*shape)).astype(dtypes.as_dtype(dtype or "float32").np))


_NAMES = {"zeros": Zeros, "ones": Ones, "constant": Constant, "random_normal": RandomNormal,
          "random_uniform": RandomUniform, "truncated_normal": TruncatedNormal, "glorot_uniform": GlorotUniform,
          "glorot_normal": GlorotNormal, "he_uniform": HeUniform, "he_normal": HeNormal,
          "lecun_uniform": LecunUniform, "lecun_normal": LecunNormal, "orthogonal": Orthogonal,
          "identity": Identity, "variance_scaling": VarianceScaling}


def get(identifier):
    if isinstance(identifier, Initializer) or callable(identifier) and not isinstance(identifier, type):
        return identifier
    if isinstance(identifier, type):
        return identifier()
    key = str(identifier)
    if key in globals() and isinstance(globals()[key], type) and issubclass(globals()[key], Initializer):
        return globals()[key]()
    if key.lower() not in _NAMES:
        raise UnsupportedError(f"initializer {identifier!r} is not supported by Dagscope; supported: "
                               f"{', '.join(sorted(_NAMES))}")
    return _NAMES[key.lower()]()


zeros, ones, constant = Zeros, Ones, Constant
random_normal, random_uniform, truncated_normal = RandomNormal, RandomUniform, TruncatedNormal
glorot_uniform, glorot_normal, he_uniform, he_normal = GlorotUniform, GlorotNormal, HeUniform, HeNormal
lecun_uniform, lecun_normal, orthogonal, identity = LecunUniform, LecunNormal, Orthogonal, Identity

__getattr__ = unsupported_names("tf.keras.initializers", globals())
