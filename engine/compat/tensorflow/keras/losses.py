"""`keras.losses`: Keras 3's loss functions (per example: the mean over the last axis, or the sum for
cross-entropies) and Loss classes (their mean over the batch, 'sum_over_batch_size'), written with
the TF facade's ops so gradients flow through the engine's autograd. Subclass `Loss` and define
`call(y_true, y_pred)` for your own."""
from __future__ import annotations

from engine.compat.tensorflow import array_ops, dtypes, nn, ops
from engine.compat.tensorflow._surface import keras_get, unsupported_names
from engine.errors import UnsupportedError

EPSILON = 1e-7          # keras.config.epsilon()


def _pair(y_true, y_pred):
    y_pred = ops.convert_to_tensor(y_pred)
    if not y_pred.dtype.is_floating:
        y_pred = ops.cast(y_pred, dtypes.float32)
    y_true = ops.cast(ops.convert_to_tensor(y_true), y_pred.dtype)
    return y_true, y_pred


def mean_squared_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.reduce_mean(ops.square(y_pred - y_true), axis=-1)


def mean_absolute_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.reduce_mean(ops.abs(y_pred - y_true), axis=-1)


def mean_absolute_percentage_error(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    diff = ops.abs((y_true - y_pred) / ops.maximum(ops.abs(y_true), EPSILON))
    return ops.reduce_mean(diff, axis=-1) * 100.0


def huber(y_true, y_pred, delta=1.0):
    y_true, y_pred = _pair(y_true, y_pred)
    err = ops.abs(y_pred - y_true)
    quad = ops.minimum(err, float(delta))
    return ops.reduce_mean(quad * quad * 0.5 + (err - quad) * float(delta), axis=-1)


def binary_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        y_true = y_true * (1.0 - label_smoothing) + 0.5 * label_smoothing
    if from_logits:
        return ops.reduce_mean(nn.sigmoid_cross_entropy_with_logits(labels=y_true, logits=y_pred), axis=axis)
    p = ops.clip_by_value(y_pred, EPSILON, 1.0 - EPSILON)
    return ops.reduce_mean(-(y_true * ops.log(p) + (1.0 - y_true) * ops.log(1.0 - p)), axis=axis)


def categorical_crossentropy(y_true, y_pred, from_logits=False, label_smoothing=0.0, axis=-1):
    y_true, y_pred = _pair(y_true, y_pred)
    if label_smoothing:
        classes = float(y_pred.shape[-1])
        y_true = y_true * (1.0 - label_smoothing) + label_smoothing / classes
    if from_logits:
        return nn.softmax_cross_entropy_with_logits(labels=y_true, logits=y_pred, axis=axis)
    p = y_pred / ops.reduce_sum(y_pred, axis=axis, keepdims=True)
    p = ops.clip_by_value(p, EPSILON, 1.0 - EPSILON)
    return -ops.reduce_sum(y_true * ops.log(p), axis=axis)


def sparse_categorical_crossentropy(y_true, y_pred, from_logits=False, ignore_class=None, axis=-1):
    if ignore_class is not None:
        raise UnsupportedError("sparse_categorical_crossentropy(ignore_class=...) is not supported by Dagscope")
    y_pred = ops.convert_to_tensor(y_pred)
    labels = ops.convert_to_tensor(y_true)
    if labels.shape.rank == y_pred.shape.rank and labels.shape[-1] == 1:
        labels = array_ops.squeeze(labels, axis=-1)
    labels = ops.cast(labels, dtypes.int64)
    onehot = array_ops.one_hot(labels, int(y_pred.shape[-1]), dtype=y_pred.dtype)
    return categorical_crossentropy(onehot, y_pred, from_logits=from_logits)


def kl_divergence(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    t = ops.clip_by_value(y_true, EPSILON, 1.0)
    p = ops.clip_by_value(y_pred, EPSILON, 1.0)
    return ops.reduce_sum(t * ops.log(t / p), axis=-1)


def hinge(y_true, y_pred):
    y_true, y_pred = _pair(y_true, y_pred)
    return ops.reduce_mean(ops.maximum(1.0 - y_true * y_pred, 0.0), axis=-1)


class Loss:
    """Keras' Loss: `call(y_true, y_pred)` gives per-example losses; `__call__` reduces them
    ('sum_over_batch_size': their mean; 'sum'; None / 'none': unreduced)."""

    def __init__(self, name=None, reduction="sum_over_batch_size", dtype=None):
        self.name = name or _snake(type(self).__name__)
        self.reduction = "sum_over_batch_size" if reduction == "auto" else reduction
        self.dtype = dtypes.as_dtype(dtype or "float32")       # Keras' floatx

    def call(self, y_true, y_pred):
        raise NotImplementedError

    def _as_dtype(self, value):
        """Keras 3 converts both arguments to the loss's dtype (float32) before `call`."""
        t = ops.convert_to_tensor(value)
        return t if t.dtype == self.dtype else ops.cast(t, self.dtype)

    def __call__(self, y_true, y_pred, sample_weight=None):
        y_pred, y_true = self._as_dtype(y_pred), self._as_dtype(y_true)
        losses = ops.convert_to_tensor(self.call(y_true, y_pred))
        if sample_weight is not None:
            w = ops.cast(ops.convert_to_tensor(sample_weight), losses.dtype)
            while w.shape.rank > losses.shape.rank:
                w = array_ops.squeeze(w, axis=-1)
            losses = losses * w
        if self.reduction in (None, "none"):
            return losses
        if self.reduction == "sum":
            return ops.reduce_sum(losses)
        return ops.reduce_mean(losses)

    def get_config(self) -> dict:
        return {"name": self.name, "reduction": self.reduction}


class LossFunctionWrapper(Loss):
    def __init__(self, fn, name=None, reduction="sum_over_batch_size", **kwargs):
        super().__init__(name=name or fn.__name__, reduction=reduction)
        self.fn, self._fn_kwargs = fn, kwargs

    def call(self, y_true, y_pred):
        y_true, y_pred = same_rank(ops.convert_to_tensor(y_true), ops.convert_to_tensor(y_pred))
        return self.fn(y_true, y_pred, **self._fn_kwargs)


def same_rank(a, b):
    """Keras' squeeze_or_expand_to_same_rank: y of shape (n,) against predictions (n, 1) is made (n, 1),
    not broadcast to (n, n)."""
    ra, rb = a.shape.rank, b.shape.rank
    if ra == rb + 1 and a.shape[-1] == 1:
        return (a, array_ops.expand_dims(b, -1)) if rb == 1 else (array_ops.squeeze(a, axis=-1), b)
    if rb == ra + 1 and b.shape[-1] == 1:
        return (array_ops.expand_dims(a, -1), b) if ra == 1 else (a, array_ops.squeeze(b, axis=-1))
    return a, b


def _wrapper(fn, default_name, **defaults):
    class Wrapped(LossFunctionWrapper):
        def __init__(self, reduction="sum_over_batch_size", name=default_name, **kwargs):
            super().__init__(fn, name=name, reduction=reduction, **{**defaults, **kwargs})
    return Wrapped


class MeanSquaredError(_wrapper(mean_squared_error, "mean_squared_error")):
    pass


class MeanAbsoluteError(_wrapper(mean_absolute_error, "mean_absolute_error")):
    pass


class MeanAbsolutePercentageError(_wrapper(mean_absolute_percentage_error, "mean_absolute_percentage_error")):
    pass


class Huber(_wrapper(huber, "huber_loss")):
    pass


class BinaryCrossentropy(_wrapper(binary_crossentropy, "binary_crossentropy")):
    pass


class CategoricalCrossentropy(_wrapper(categorical_crossentropy, "categorical_crossentropy")):
    pass


class SparseCategoricalCrossentropy(_wrapper(sparse_categorical_crossentropy, "sparse_categorical_crossentropy")):
    pass


class KLDivergence(_wrapper(kl_divergence, "kl_divergence")):
    pass


class Hinge(_wrapper(hinge, "hinge")):
    pass


mse = MSE = mean_squared_error
mae = MAE = mean_absolute_error
mape = MAPE = mean_absolute_percentage_error
kld = KLD = kl_divergence

_BY_NAME = {"mean_squared_error": mean_squared_error, "mse": mean_squared_error,
            "mean_absolute_error": mean_absolute_error, "mae": mean_absolute_error,
            "mean_absolute_percentage_error": mean_absolute_percentage_error, "mape": mean_absolute_percentage_error,
            "huber": huber, "huber_loss": huber, "binary_crossentropy": binary_crossentropy,
            "categorical_crossentropy": categorical_crossentropy,
            "sparse_categorical_crossentropy": sparse_categorical_crossentropy,
            "kl_divergence": kl_divergence, "kld": kl_divergence, "hinge": hinge}


def get(identifier):
    """A loss from a name ('mse', 'binary_crossentropy' ...), a Loss, a class or a function."""
    return keras_get(identifier, Loss, globals(), _BY_NAME, "loss",
                     lambda fn: LossFunctionWrapper(fn, name=getattr(fn, "__name__", "loss")),
                     lambda key: LossFunctionWrapper(_BY_NAME[key.lower()], name=key))


def _snake(name: str) -> str:
    return "".join("_" + c.lower() if c.isupper() and i and not name[i - 1].isupper() else c.lower()
                   for i, c in enumerate(name))


__getattr__ = unsupported_names("tf.keras.losses", globals())
