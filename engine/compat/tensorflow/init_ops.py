"""TensorFlow's own initializers (TF's init_ops_v2): `tf.random_normal_initializer`,
`tf.random_uniform_initializer`, `tf.zeros_initializer`, `tf.ones_initializer`,
`tf.constant_initializer` — callables `init(shape, dtype=tf.float32)` that return a tensor, used for
tf.Variable and as Keras layers' initializers (d2l's TensorFlow chapters).

They are not Keras' (tf.keras.initializers): their defaults differ and an unseeded one does not take
a seed when it is made. A seeded one draws TF's stateless Philox stream for the seed [seed, 0]
(init_ops_v2's _RandomGenerator calls stateless_random_normal / _uniform / _truncated_normal), the
stream Keras' seeded initializers draw too (keras/philox.py: the same numbers). An unseeded one
draws as tf.random.normal / uniform / truncated_normal do in the run (random.py)."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes, ops, random
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import philox
from engine.compat.tensorflow.ops import _shape_tuple
from engine.errors import UnsupportedError


class Initializer:
    """TF's base class: subclasses define `__call__(shape, dtype=None, **kwargs)`."""

    def __call__(self, shape, dtype=None, **kwargs):
        raise NotImplementedError

    def get_config(self) -> dict:
        return {}

    @classmethod
    def from_config(cls, config: dict):
        return cls(**config)


def _float_dtype(dtype):
    dtype = dtypes.as_dtype(dtype if dtype is not None else dtypes.float32)
    if not dtype.is_floating:
        raise ValueError(f"Argument `dtype` is expected to be floating point. Received: {dtype}.")
    return dtype


class Zeros(Initializer):
    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return EagerTensor(np.zeros(_shape_tuple(shape), dtypes.as_dtype(dtype).np))


class Ones(Initializer):
    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        return EagerTensor(np.ones(_shape_tuple(shape), dtypes.as_dtype(dtype).np))


class Constant(Initializer):
    """A scalar fills the shape; a list or array must have the shape's number of elements (reshaped)."""

    def __init__(self, value=0):
        self.value = value

    def __call__(self, shape, dtype=None, **kwargs):
        shape = _shape_tuple(shape)
        value = ops.constant(self.value, dtype=dtype)      # without a dtype, tf.constant's (3.5: float32)
        dtype, value = value.dtype, value.numpy()
        if value.size == 1:
            return EagerTensor(np.full(shape, value.reshape(()), dtype.np))
        if value.size != int(np.prod(shape, dtype=np.int64)):
            raise TypeError(f"Eager execution of tf.constant with unsupported shape. Tensor {self.value} (converted "
                            f"from {self.value}) has {value.size} elements, but got `shape` {shape} with "
                            f"{int(np.prod(shape, dtype=np.int64))} elements).")
        return EagerTensor(value.reshape(shape).astype(dtype.np))

    def get_config(self) -> dict:
        return {"value": self.value}


class _Random(Initializer):
    def _stateless(self, draw, shape, dtype, who: str):
        """TF's stateless op for [seed, 0] (float32: the Philox numbers Keras' initializers draw)."""
        if dtype != dtypes.float32:
            raise UnsupportedError(f"{who}(seed=...) for {dtype.name} is not supported by Dagscope: its numbers "
                                   "are TensorFlow's for float32 only")
        return EagerTensor(draw(shape, [self.seed, 0]))


class RandomNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        dtype, shape = _float_dtype(dtype), _shape_tuple(shape)
        if self.seed is None:
            return random.normal(shape, self.mean, self.stddev, dtype)
        return self._stateless(lambda s, seed: philox.normal(s, seed, self.mean, self.stddev), shape, dtype,
                               "tf.random_normal_initializer")

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


class RandomUniform(_Random):
    def __init__(self, minval=-0.05, maxval=0.05, seed=None):
        self.minval, self.maxval, self.seed = minval, maxval, seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        dtype, shape = dtypes.as_dtype(dtype), _shape_tuple(shape)
        if self.seed is None:
            return random.uniform(shape, self.minval, self.maxval, dtype)
        _float_dtype(dtype)
        return self._stateless(lambda s, seed: philox.uniform(s, seed, self.minval, self.maxval), shape, dtype,
                               "tf.random_uniform_initializer")

    def get_config(self) -> dict:
        return {"minval": self.minval, "maxval": self.maxval, "seed": self.seed}


class TruncatedNormal(_Random):
    def __init__(self, mean=0.0, stddev=0.05, seed=None):
        self.mean, self.stddev, self.seed = mean, stddev, seed

    def __call__(self, shape, dtype=dtypes.float32, **kwargs):
        dtype, shape = _float_dtype(dtype), _shape_tuple(shape)
        if self.seed is None:
            return random.truncated_normal(shape, self.mean, self.stddev, dtype)
        return self._stateless(lambda s, seed: philox.truncated_normal(s, seed, self.mean, self.stddev), shape,
                               dtype, "tf.initializers.TruncatedNormal")

    def get_config(self) -> dict:
        return {"mean": self.mean, "stddev": self.stddev, "seed": self.seed}


# the top-level names TF 2.x exports them under
zeros_initializer, ones_initializer, constant_initializer = Zeros, Ones, Constant
random_normal_initializer, random_uniform_initializer = RandomNormal, RandomUniform
