"""`keras.metrics`: stateful metrics (update_state / result / reset_state) as Keras 3 keeps them: a
weighted mean of per-example values in float32 (accuracy: the share of examples right). They are
bookkeeping, not part of any gradient, so they are computed in numpy from the tensors' values."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import ops
from engine.compat.tensorflow._surface import keras_get, unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import losses as losses_module


def _np(x) -> np.ndarray:
    if hasattr(x, "_dagscope_value"):
        x = x._dagscope_value()
    return np.asarray(getattr(x, "array", x))


class Metric:
    def __init__(self, name=None, dtype=None):
        self.name = name or losses_module._snake(type(self).__name__)
        self.reset_state()

    def reset_state(self) -> None:
        self.total, self.count = np.float32(0), np.float32(0)

    reset_states = reset_state

    def update_state(self, *args, **kwargs):
        raise NotImplementedError

    def result(self):
        return EagerTensor(np.float32(self.total / self.count) if self.count else np.float32(0))

    def __call__(self, *args, **kwargs):
        self.update_state(*args, **kwargs)
        return self.result()

    @property
    def variables(self) -> list:
        return []

    def __repr__(self) -> str:
        return f"<{type(self).__name__} name={self.name}>"


class Mean(Metric):
    """The weighted mean of the values given (Keras' `Mean`: the loss tracker is one)."""

    def update_state(self, values, sample_weight=None):
        """Keras 3's: per-sample means (reduce_to_samplewise_values), their sum over the count of samples
        or over the sum of the weights."""
        v, w = samplewise(_np(values).astype(np.float32), sample_weight)
        self.total += np.float32(v.sum())
        self.count += np.float32(w.sum()) if w is not None else np.float32(v.shape[0] if v.ndim else 1)


class Sum(Metric):
    def update_state(self, values, sample_weight=None):
        self.total += np.float32(_np(values).sum())
        self.count = np.float32(1)

    def result(self):
        return EagerTensor(np.float32(self.total))


class MeanMetricWrapper(Mean):
    """A function of (y_true, y_pred) giving per-example values, averaged over every example seen."""

    def __init__(self, fn, name=None, dtype=None, **kwargs):
        self._fn, self._fn_kwargs = fn, kwargs
        super().__init__(name=name or getattr(fn, "__name__", "metric"))

    def update_state(self, y_true, y_pred, sample_weight=None):
        values = _np(self._fn(y_true, y_pred, **self._fn_kwargs))
        super().update_state(values, sample_weight)


def samplewise(v: np.ndarray, sample_weight):
    """Keras 3's reduce_to_samplewise_values: weights brought to the values' rank (same_rank), the
    values averaged down to the weights' rank, weighted, then both averaged to one number per sample
    ((32,) per-sample values with (32, 1) weights, as a custom train_step passes them)."""
    w = None
    if sample_weight is not None:
        v, w = same_rank(v, _np(sample_weight).astype(np.float32))
        if v.ndim > w.ndim:
            v = v.mean(axis=tuple(range(w.ndim, v.ndim)), dtype=np.float32)
        w = np.broadcast_to(w, v.shape)
        v = v * w
        if w.ndim > 1:
            w = w.mean(axis=tuple(range(1, w.ndim)), dtype=np.float32)
    if v.ndim > 1:
        v = v.mean(axis=tuple(range(1, v.ndim)), dtype=np.float32)
    return v, w


# ---- per-example functions ----------------------------------------------------------------------------

def same_rank(a: np.ndarray, b: np.ndarray):
    """Keras' squeeze_or_expand_to_same_rank: when the ranks differ by one and the longer ends in 1,
    a rank-1 partner gets a trailing axis, otherwise the longer loses it."""
    if a.ndim == b.ndim + 1 and a.shape[-1] == 1:
        return (a, b[..., None]) if b.ndim == 1 else (a[..., 0], b)
    if b.ndim == a.ndim + 1 and b.shape[-1] == 1:
        return (a[..., None], b) if a.ndim == 1 else (a, b[..., 0])
    return a, b


def accuracy(y_true, y_pred):
    t, p = same_rank(_np(y_true), _np(y_pred))
    return (t == p).astype(np.float32)


def binary_accuracy(y_true, y_pred, threshold=0.5):
    t, p = same_rank(_np(y_true), _np(y_pred))
    return (t == (p > threshold).astype(t.dtype)).astype(np.float32)


def categorical_accuracy(y_true, y_pred):
    t, p = _np(y_true), _np(y_pred)
    return (np.argmax(t, axis=-1) == np.argmax(p, axis=-1)).astype(np.float32)


def sparse_categorical_accuracy(y_true, y_pred):
    t, p = _np(y_true), _np(y_pred)
    if t.ndim == p.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    return (t.astype(np.int64) == np.argmax(p, axis=-1)).astype(np.float32)


def top_k_categorical_accuracy(y_true, y_pred, k=5):
    return sparse_top_k_categorical_accuracy(np.argmax(_np(y_true), axis=-1), y_pred, k)


def sparse_top_k_categorical_accuracy(y_true, y_pred, k=5):
    t, p = _np(y_true), _np(y_pred)
    if t.ndim == p.ndim and t.shape[-1] == 1:
        t = t[..., 0]
    top = np.argsort(-p, axis=-1, kind="stable")[..., :k]
    return (top == t.astype(np.int64)[..., None]).any(axis=-1).astype(np.float32)


def _loss_values(fn):
    def values(y_true, y_pred, **kwargs):
        return _np(fn(y_true, ops.convert_to_tensor(_np(y_pred)), **kwargs))
    values.__name__ = fn.__name__
    return values


def _wrapper(fn, default_name):
    class Wrapped(MeanMetricWrapper):
        def __init__(self, name=default_name, dtype=None, **kwargs):
            super().__init__(fn, name=name, **kwargs)
    return Wrapped


class Accuracy(_wrapper(accuracy, "accuracy")):
    pass


class BinaryAccuracy(_wrapper(binary_accuracy, "binary_accuracy")):
    pass


class CategoricalAccuracy(_wrapper(categorical_accuracy, "categorical_accuracy")):
    pass


class SparseCategoricalAccuracy(_wrapper(sparse_categorical_accuracy, "sparse_categorical_accuracy")):
    pass


class TopKCategoricalAccuracy(_wrapper(top_k_categorical_accuracy, "top_k_categorical_accuracy")):
    pass


class SparseTopKCategoricalAccuracy(_wrapper(sparse_top_k_categorical_accuracy,
                                             "sparse_top_k_categorical_accuracy")):
    pass


mean_squared_error = _loss_values(losses_module.mean_squared_error)
mean_absolute_error = _loss_values(losses_module.mean_absolute_error)
mean_absolute_percentage_error = _loss_values(losses_module.mean_absolute_percentage_error)
binary_crossentropy = _loss_values(losses_module.binary_crossentropy)
categorical_crossentropy = _loss_values(losses_module.categorical_crossentropy)
sparse_categorical_crossentropy = _loss_values(losses_module.sparse_categorical_crossentropy)


class MeanSquaredError(_wrapper(mean_squared_error, "mean_squared_error")):
    pass


class MeanAbsoluteError(_wrapper(mean_absolute_error, "mean_absolute_error")):
    pass


class MeanAbsolutePercentageError(_wrapper(mean_absolute_percentage_error, "mean_absolute_percentage_error")):
    pass


class BinaryCrossentropy(_wrapper(binary_crossentropy, "binary_crossentropy")):
    pass


class CategoricalCrossentropy(_wrapper(categorical_crossentropy, "categorical_crossentropy")):
    pass


class SparseCategoricalCrossentropy(_wrapper(sparse_categorical_crossentropy, "sparse_categorical_crossentropy")):
    pass


class RootMeanSquaredError(Mean):
    def __init__(self, name="root_mean_squared_error", dtype=None):
        super().__init__(name=name)

    def update_state(self, y_true, y_pred, sample_weight=None):
        super().update_state(np.square(_np(y_pred) - _np(y_true)), sample_weight)

    def result(self):
        return EagerTensor(np.float32(np.sqrt(self.total / self.count)) if self.count else np.float32(0))


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error

_BY_NAME = {"accuracy": Accuracy, "acc": Accuracy, "binary_accuracy": BinaryAccuracy,
            "categorical_accuracy": CategoricalAccuracy, "sparse_categorical_accuracy": SparseCategoricalAccuracy,
            "top_k_categorical_accuracy": TopKCategoricalAccuracy,
            "sparse_top_k_categorical_accuracy": SparseTopKCategoricalAccuracy,
            "mse": MeanSquaredError, "mean_squared_error": MeanSquaredError, "mae": MeanAbsoluteError,
            "mean_absolute_error": MeanAbsoluteError, "mape": MeanAbsolutePercentageError,
            "mean_absolute_percentage_error": MeanAbsolutePercentageError, "binary_crossentropy": BinaryCrossentropy,
            "categorical_crossentropy": CategoricalCrossentropy,
            "sparse_categorical_crossentropy": SparseCategoricalCrossentropy,
            "root_mean_squared_error": RootMeanSquaredError}


def get(identifier):
    return keras_get(identifier, Metric, globals(), _BY_NAME, "metric",
                     lambda fn: MeanMetricWrapper(fn, name=getattr(fn, "__name__", "metric")),
                     lambda key: _BY_NAME[key.lower()]())


def for_compile(identifier, y_true, y_pred) -> Metric:
    """Keras' compile-time choice: 'accuracy' is binary, sparse or categorical accuracy by the shapes,
    and a metric given by a string keeps that string as its name."""
    if str(identifier).lower() in ("accuracy", "acc"):
        t_rank, p_rank = len(y_true.shape), len(y_pred.shape)
        if y_pred.shape[-1] == 1:
            metric = BinaryAccuracy(name=str(identifier))
        elif t_rank < p_rank or y_true.shape[-1] == 1 and y_pred.shape[-1] > 1:
            metric = SparseCategoricalAccuracy(name=str(identifier))
        else:
            metric = CategoricalAccuracy(name=str(identifier))
        return metric
    metric = get(identifier)
    if isinstance(identifier, str):
        metric.name = identifier
    return metric


__getattr__ = unsupported_names("tf.keras.metrics", globals())
