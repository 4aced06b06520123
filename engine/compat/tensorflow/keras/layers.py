"""`tf.keras.layers.Dense`: y = activation(x @ kernel + bias), variables created on the first call."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import context, dtypes, ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras import activations
from engine.compat.tensorflow.variables import Variable
from engine.errors import UnsupportedError


def _unique_layer_name(base: str) -> str:
    counts = context.state().keras_names
    n = counts.get(base, 0)
    counts[base] = n + 1
    return base if n == 0 else f"{base}_{n}"


class Layer:
    """The base of layers and models: variables it owns, and those of layers in its attributes."""

    def __init__(self, name=None, trainable=True, **kwargs):
        self.name = name or _unique_layer_name(_snake(type(self).__name__))
        self.trainable = trainable
        self.built = False
        self._own_weights: list = []

    def add_weight(self, name, shape, initializer="glorot_uniform", trainable=True, dtype=dtypes.float32):
        value = _initial(initializer, tuple(shape), dtypes.as_dtype(dtype))
        v = Variable(value, trainable=trainable, name=f"{self.name}/{name}")
        self._own_weights.append(v)
        return v

    def build(self, input_shape) -> None:
        self.built = True

    def __call__(self, inputs, *args, **kwargs):
        if not self.built:
            self.build(ops.convert_to_tensor(inputs).shape)
            self.built = True
        return self.call(inputs, *args, **kwargs)

    def call(self, inputs, *args, **kwargs):
        return inputs

    def _sublayers(self) -> list:
        found = []
        for value in vars(self).values():
            items = value if isinstance(value, (list, tuple)) else [value]
            found.extend(item for item in items if isinstance(item, Layer))
        return found

    @property
    def weights(self) -> list:
        out = list(self._own_weights)
        for layer in self._sublayers():
            out.extend(w for w in layer.weights if all(w is not o for o in out))
        return out

    variables = weights

    @property
    def trainable_variables(self) -> list:
        return [w for w in self.weights if w.trainable] if self.trainable else []

    trainable_weights = trainable_variables


class Dense(Layer):
    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", name=None, **kwargs):
        super().__init__(name=name, **kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = kernel_initializer
        self.bias_initializer = bias_initializer

    def build(self, input_shape) -> None:
        self.kernel = self.add_weight("kernel", (int(input_shape[-1]), self.units), self.kernel_initializer)
        self.bias = self.add_weight("bias", (self.units,), self.bias_initializer) if self.use_bias else None
        self.built = True

    def call(self, inputs):
        y = ops.matmul(inputs, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)


def _initial(initializer, shape: tuple, dtype: dtypes.DType) -> np.ndarray:
    rng = context.state().rng
    if initializer in ("zeros", "Zeros"):
        return np.zeros(shape, dtype.np)
    if initializer in ("ones", "Ones"):
        return np.ones(shape, dtype.np)
    if initializer in ("glorot_uniform", "GlorotUniform"):
        fan_in, fan_out = (shape[0] if shape else 1), (shape[-1] if shape else 1)
        limit = np.sqrt(6.0 / (fan_in + fan_out))
        return rng.uniform(-limit, limit, size=shape).astype(dtype.np)
    raise UnsupportedError(f"initializer {initializer!r} is not supported by Dagscope (zeros, ones, glorot_uniform)")


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i else c.lower() for i, c in enumerate(name))


__getattr__ = unsupported_names("tf.keras.layers", globals())
