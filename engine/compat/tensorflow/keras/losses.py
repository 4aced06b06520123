"""`tf.keras.losses`: the usual losses as compositions of TF ops (mean over the batch)."""
from __future__ import annotations

from engine.compat.tensorflow import array_ops, dtypes, nn, ops
from engine.compat.tensorflow._surface import unsupported_names
from engine.errors import UnsupportedError


def mean_squared_error(y_true, y_pred):
    """Per example: the mean over the last axis of (y_true - y_pred)^2."""
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype)
    return ops.reduce_mean(ops.square(y_pred - y_true), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False):
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype)
    if from_logits:
        return ops.reduce_mean(nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred), axis=-1)
    eps = 1e-7                                  # Keras clips probabilities to [eps, 1 - eps]
    p = ops.clip_by_value(y_pred, eps, 1.0 - eps)
    return ops.reduce_mean(-(y_true * ops.log(p) + (1.0 - y_true) * ops.log(1.0 - p)), axis=-1)


def categorical_crossentropy(y_true, y_pred, from_logits=False):
    y_pred = ops.convert_to_tensor(y_pred)
    y_true = ops.cast(y_true, y_pred.dtype)
    if from_logits:
        return nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred)
    p = ops.clip_by_value(y_pred / ops.reduce_sum(y_pred, axis=-1, keepdims=True), 1e-7, 1.0 - 1e-7)
    return -ops.reduce_sum(y_true * ops.log(p), axis=-1)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False):
    y_pred = ops.convert_to_tensor(y_pred)
    depth = y_pred.shape[-1]
    labels = ops.cast(ops.convert_to_tensor(y_true), dtypes.int64)
    return categorical_crossentropy(_one_hot(labels, depth, y_pred.dtype), y_pred, from_logits=from_logits)


def _one_hot(labels, depth, dtype):
    return array_ops.one_hot(labels, depth, dtype=dtype)


class _Loss:
    fn = staticmethod(mean_squared_error)

    def __init__(self, from_logits=False, reduction="auto", name=None):
        self.from_logits = from_logits

    def __call__(self, y_true, y_pred, sample_weight=None):
        if sample_weight is not None:
            raise UnsupportedError("sample_weight is not supported by Dagscope's keras losses")
        kwargs = {} if type(self).fn is mean_squared_error else {"from_logits": self.from_logits}
        return ops.reduce_mean(type(self).fn(y_true, y_pred, **kwargs))


class MeanSquaredError(_Loss):
    fn = staticmethod(mean_squared_error)


class BinaryCrossentropy(_Loss):
    fn = staticmethod(binary_crossentropy)


class CategoricalCrossentropy(_Loss):
    fn = staticmethod(categorical_crossentropy)


class SparseCategoricalCrossentropy(_Loss):
    fn = staticmethod(sparse_categorical_crossentropy)


mse = MSE = mean_squared_error

__getattr__ = unsupported_names("tf.keras.losses", globals())
