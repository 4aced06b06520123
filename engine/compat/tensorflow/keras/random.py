"""`keras.random`: Keras 3's seeded sampling on TensorFlow — normal, uniform, truncated_normal and the
SeedGenerator that feeds them (keras-io's GAN: `keras.random.normal(shape, seed=self.seed_generator)`).

Keras 3 draws every sample from TF's stateless ops with a two-integer seed (backend/tensorflow/random.py):
an int seed s is [s, 0] each time (the same numbers every call); a SeedGenerator(s) gives [s, 0], then
[s, 1], [s, 2] ... (its `next()`); no seed draws from one global SeedGenerator made with Python's
random and stepped by Keras' unordered rule (state = (state + 1) * 5387 % 933199). The values are
TF's stateless Philox numbers (philox.py), float32."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import initializers, philox
from engine.errors import UnsupportedError

_INT32_MAX = 2 ** 31 - 1


class SeedGenerator:
    """Keras 3's: a state [seed, counter]; `next()` returns it and advances the counter."""

    def __init__(self, seed=None, name=None, **kwargs):
        if kwargs:
            raise ValueError(f"Unrecognized keyword arguments: {kwargs}")
        self._initial_seed = seed
        self.name = name or "seed_generator"
        if seed is None:
            seed = initializers.make_default_seed()
        if not isinstance(seed, int):
            raise ValueError(f"Argument `seed` must be an integer. Received: seed={seed}")
        self._state = np.array([seed, 0], np.int64)

    @property
    def state(self) -> EagerTensor:
        return EagerTensor(self._state.copy())

    def next(self, ordered=True) -> np.ndarray:
        drawn = self._state.copy()
        if ordered:
            self._state = self._state + np.array([0, 1], np.int64)
        else:                                      # Keras' near-unique sequence below 1M
            self._state = (self._state + 1) * 5387 % 933199
        return drawn

    def get_config(self) -> dict:
        return {"seed": self._initial_seed, "name": self.name}


def _global_generator() -> SeedGenerator:
    st = context.state()
    gen = st.keras_seed_generator             # one per run, made on first use
    if gen is None:
        gen = st.keras_seed_generator = SeedGenerator()
    return gen


def draw_seed(seed) -> list:
    """Keras' draw_seed then the TF backend's _cast_seed (floormod by int32 max - 1)."""
    if isinstance(seed, SeedGenerator):
        pair = seed.next()
    elif isinstance(seed, (int, np.integer)) and not isinstance(seed, bool):
        pair = [int(seed), 0]                     # (int64 on TF: no int32 bit-cast)
    elif seed is None:
        pair = _global_generator().next(ordered=False)
    else:
        raise ValueError("Argument `seed` must be either an integer or an instance of `SeedGenerator`. "
                         f"Received: seed={seed} (of type {type(seed)})")
    return [int(v) % (_INT32_MAX - 1) for v in pair]


def _shape(shape) -> tuple:
    values = shape.numpy().tolist() if hasattr(shape, "numpy") else shape
    if isinstance(values, (int, np.integer)):
        values = [values]
    return tuple(int(v.numpy()) if hasattr(v, "numpy") else int(v) for v in values)


def _sample(draw, shape, dtype, seed, what: str) -> EagerTensor:
    if context.state().tracing is not None or context.building_graph():
        raise UnsupportedError(f"keras.random.{what} inside a tf.function or a TF1 graph is not supported by "
                               "Dagscope: a traced graph would freeze one sample; draw it eagerly")
    dtype = dtypes.as_dtype(dtype or "float32")
    if dtype != dtypes.float32:
        raise UnsupportedError(f"keras.random.{what}(dtype={dtype.name}) is not supported by Dagscope: its numbers "
                               "are TensorFlow's for float32 only")
    return EagerTensor(draw(_shape(shape), draw_seed(seed)))


def normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _sample(lambda s, pair: philox.normal(s, pair, float(mean), float(stddev)), shape, dtype, seed, "normal")


def uniform(shape, minval=0.0, maxval=1.0, dtype=None, seed=None):
    return _sample(lambda s, pair: philox.uniform(s, pair, float(minval), float(maxval)), shape, dtype, seed,
                   "uniform")


def truncated_normal(shape, mean=0.0, stddev=1.0, dtype=None, seed=None):
    return _sample(lambda s, pair: philox.truncated_normal(s, pair, float(mean), float(stddev)), shape, dtype,
                   seed, "truncated_normal")


__getattr__ = unsupported_names("tf.keras.random", globals())
