"""`keras.initializers`: Keras 3's initializers with its formulas (fans, scales, the truncated
normal's 0.8796 correction) — drawn from the run's seeded numpy stream, not TensorFlow's Philox
stream: the shapes, scales and distributions are Keras', the values a real Keras run gives are not
(yet) reproduced. `keras.utils.set_random_seed` / `tf.random.set_seed` make them reproducible."""
from __future__ import annotations

import math

import numpy as np

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


def _rng(seed):
    return np.random.default_rng(int(seed)) if seed is not None else context.state().rng


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
        return np.zeros(tuple(shape), dtypes.as_dtype(dtype or "float32").np)


class Ones(Initializer):
    def __call__(self, shape, dtype=None):
        return np.ones(tuple(shape), dtypes.as_dtype(dtype or "float32").np)


class Constant(Initializer):
    def __init__(self, value=0.0):
        self.value = value

    def __call__(self, shape, dtype=None):
        return np.full(tuple(shape), self.value, dtypes.as_dtype(dtype or "float32").np)


class RandomNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        out = _rng(self.seed).normal(self.mean, self.stddev, size=tuple(shape))
        return out.astype(dtypes.as_dtype(dtype or "float32").np)


class RandomUniform(Initializer):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=None):
        out = _rng(self.seed).uniform(self.minval, self.maxval, size=tuple(shape))
        return out.astype(dtypes.as_dtype(dtype or "float32").np)


def _truncated(rng, shape, stddev, mean=0.0):
    out = rng.standard_normal(shape)
    bad = np.abs(out) > 2.0                         # redrawn beyond two standard deviations, as TF does
    while bad.any():
        out[bad] = rng.standard_normal(int(bad.sum()))
        bad = np.abs(out) > 2.0
    return out * stddev + mean


class TruncatedNormal(Initializer):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=None):
        out = _truncated(_rng(self.seed), tuple(shape), self.stddev, self.mean)
        return out.astype(dtypes.as_dtype(dtype or "float32").np)


class VarianceScaling(Initializer):
    def __init__(self, scale=1.0, mode="fan_in", distribution="truncated_normal", seed=None):
        if distribution == "normal":
            distribution = "truncated_normal"
        self.scale, self.mode, self.distribution, self.seed = float(scale), mode, distribution, seed

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        fan_in, fan_out = compute_fans(shape)
        n = {"fan_in": fan_in, "fan_out": fan_out, "fan_avg": (fan_in + fan_out) / 2.0}[self.mode]
        scale = self.scale / max(1.0, n)
        rng = _rng(self.seed)
        if self.distribution == "truncated_normal":
            out = _truncated(rng, shape, math.sqrt(scale) / 0.87962566103423978)
        elif self.distribution == "untruncated_normal":
            out = rng.normal(0.0, math.sqrt(scale), size=shape)
        else:
            limit = math.sqrt(3.0 * scale)
            out = rng.uniform(-limit, limit, size=shape)
        return out.astype(dtypes.as_dtype(dtype or "float32").np)


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


class Orthogonal(Initializer):
    def __init__(self, gain=1.0, seed=None):
        self.gain, self.seed = gain, seed

    def __call__(self, shape, dtype=None):
        shape = tuple(shape)
        rows, cols = math.prod(shape[:-1]), shape[-1]
        a = _rng(self.seed).normal(size=(max(rows, cols), min(rows, cols)))
        q, r = np.linalg.qr(a)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        return (self.gain * q.reshape(shape)).astype(dtypes.as_dtype(dtype or "float32").np)


class Identity(Initializer):
    def __init__(self, gain=1.0):
        self.gain = gain

    def __call__(self, shape, dtype=None):
        return (self.gain * np.eye(*shape)).astype(dtypes.as_dtype(dtype or "float32").np)


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
