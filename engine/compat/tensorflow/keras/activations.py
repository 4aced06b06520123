"""`keras.activations`: names to functions (`activation="relu"`), each a TF op lowering onto the
engine's registry (gelu, elu, silu are the registry's fused ops, with their own gradients)."""
from __future__ import annotations


from engine.compat.tensorflow import nn, ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


def linear(x):
    return x


def relu(x, negative_slope=0.0, max_value=None, threshold=0.0):
    if threshold != 0.0:
        raise UnsupportedError("relu(threshold=...) is not supported by Dagscope")
    y = nn.leaky_relu(x, alpha=negative_slope) if negative_slope else nn.relu(x)
    return ops.minimum(y, float(max_value)) if max_value is not None else y


sigmoid = ops.sigmoid
tanh = ops.tanh
softplus = ops.softplus
relu6 = nn.relu6


def softmax(x, axis=-1):
    return nn.softmax(x, axis=axis)


def log_softmax(x, axis=-1):
    return nn.log_softmax(x, axis=axis)


def _fused(tf_type, lower):
    def act(x):
        x = ops.convert_to_tensor(x)
        return ops.run_op(tf_type, tf_type, lower, [x])
    return act


silu = swish = _fused("Silu", lambda F, x: F.silu(x))
_elu1 = _fused("Elu", lambda F, x: F.elu(x, alpha=1.0))


def elu(x, alpha=1.0):
    if alpha == 1.0:
        return _elu1(x)
    x = ops.convert_to_tensor(x)
    return ops.run_op("Elu", "Elu", lambda F, x: F.elu(x, alpha=float(alpha)), [x])


def gelu(x, approximate=False):
    x = ops.convert_to_tensor(x)
    mode = "tanh" if approximate else "none"
    return ops.run_op("Gelu", "Gelu", lambda F, x: F.gelu(x, approximate=mode), [x])


def selu(x):
    alpha, scale = 1.6732632423543772, 1.0507009873554805
    return elu(x, alpha) * scale


def leaky_relu(x, negative_slope=0.2):
    return nn.leaky_relu(x, alpha=negative_slope)


def softsign(x):
    return x / (ops.abs(x) + 1.0)


def exponential(x):
    return ops.exp(x)


def hard_sigmoid(x):
    """Keras 3: relu6(x + 3) / 6."""
    return relu6(x + 3.0) / 6.0


def mish(x):
    return x * ops.tanh(ops.softplus(x))


_TABLE = {"linear": linear, "relu": relu, "sigmoid": sigmoid, "tanh": tanh, "softmax": softmax,
          "log_softmax": log_softmax, "softplus": softplus, "relu6": relu6, "silu": silu, "swish": swish,
          "elu": elu, "gelu": gelu, "selu": selu, "leaky_relu": leaky_relu, "softsign": softsign,
          "exponential": exponential, "hard_sigmoid": hard_sigmoid, "mish": mish}


def get(identifier):
    """A callable from a name, a callable, or None (linear)."""
    if identifier is None:
        return linear
    if callable(identifier):
        return identifier
    if identifier not in _TABLE:
        raise UnsupportedError(f"activation {identifier!r} is not supported by Dagscope; supported: "
                               f"{', '.join(sorted(_TABLE))}")
    return _TABLE[identifier]


def serialize(activation) -> str:
    return next((k for k, v in _TABLE.items() if v is activation), getattr(activation, "__name__", "custom"))


__getattr__ = unsupported_names("tf.keras.activations", globals())
