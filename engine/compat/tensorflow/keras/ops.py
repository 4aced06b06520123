"""`keras.ops`: Keras 3's backend-neutral ops — here the TF facade's ops under Keras' names."""
from __future__ import annotations

from engine.compat.tensorflow import array_ops, nn
from engine.compat.tensorflow import ops as tf
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras import activations

add, subtract, multiply, divide, true_divide = tf.add, tf.subtract, tf.multiply, tf.truediv, tf.truediv
negative, abs, absolute, square, sqrt, exp, log = tf.negative, tf.abs, tf.abs, tf.square, tf.sqrt, tf.exp, tf.log  # noqa: A001
sin, cos, tanh, sign, floor, ceil, round = tf.sin, tf.cos, tf.tanh, tf.sign, tf.floor, tf.ceil, tf.round  # noqa: A001
maximum, minimum, power, equal, not_equal = tf.maximum, tf.minimum, tf.pow, tf.equal, tf.not_equal
greater, greater_equal, less, less_equal, where = tf.greater, tf.greater_equal, tf.less, tf.less_equal, tf.where
matmul, cast, convert_to_tensor = tf.matmul, tf.cast, tf.convert_to_tensor
reshape, transpose, expand_dims, squeeze, stack = array_ops.reshape, array_ops.transpose, array_ops.expand_dims, \
    array_ops.squeeze, array_ops.stack
zeros, ones, zeros_like, ones_like, eye, arange = array_ops.zeros, array_ops.ones, array_ops.zeros_like, \
    array_ops.ones_like, array_ops.eye, array_ops.range
one_hot, stop_gradient, shape = array_ops.one_hot, array_ops.stop_gradient, array_ops.shape
relu, sigmoid, softplus, softmax, log_softmax = nn.relu, tf.sigmoid, tf.softplus, nn.softmax, nn.log_softmax
silu, gelu, elu, leaky_relu = activations.silu, activations.gelu, activations.elu, activations.leaky_relu


def _reduce(fn):
    def op(x, axis=None, keepdims=False):
        return fn(x, axis=axis, keepdims=keepdims)
    op.__name__ = fn.__name__
    return op


sum, mean, max, min = _reduce(tf.reduce_sum), _reduce(tf.reduce_mean), _reduce(tf.reduce_max), _reduce(tf.reduce_min)  # noqa: A001
var, std, logsumexp = _reduce(tf.reduce_variance), _reduce(tf.reduce_std), _reduce(tf.reduce_logsumexp)
amax, amin = max, min


def concatenate(xs, axis=0):
    return array_ops.concat(list(xs), axis=axis)


def argmax(x, axis=None, keepdims=False):
    return tf.argmax(x, axis=-1 if axis is None else axis, output_type="int32")


def argmin(x, axis=None, keepdims=False):
    return tf.argmin(x, axis=-1 if axis is None else axis, output_type="int32")


def clip(x, x_min, x_max):
    return tf.clip_by_value(x, x_min, x_max)


def dot(x1, x2):
    return tf.matmul(x1, x2)


def mean_squared_error(y_true, y_pred):
    return tf.reduce_mean(tf.square(tf.subtract(y_pred, y_true)), axis=-1)


def convert_to_numpy(x):
    return tf.convert_to_tensor(x).numpy()


__getattr__ = unsupported_names("keras.ops", globals())
