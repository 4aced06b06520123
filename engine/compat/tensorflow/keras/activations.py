"""`tf.keras.activations`: names to functions (`activation="relu"`)."""
from __future__ import annotations

from engine.compat.tensorflow import nn, ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


def linear(x):
    return x


relu = nn.relu
sigmoid = ops.sigmoid
tanh = ops.tanh
softplus = ops.softplus


def softmax(x, axis=-1):
    return nn.softmax(x, axis=axis)


def get(identifier):
    """A callable from a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    table = {"linear": linear, "relu": relu, "sigmoid": sigmoid, "tanh": tanh, "softmax": softmax,
             "softplus": softplus}
    if identifier not in table:
        raise UnsupportedError(f"activation {identifier!r} is not supported by Dagscope; supported: "
                               f"{', '.join(sorted(table))}")
    return table[identifier]


__getattr__ = unsupported_names("tf.keras.activations", globals())
