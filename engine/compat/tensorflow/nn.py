"""`tf.nn`: activations and losses, each a lowering onto registry ops (see ops.py)."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow.ops import _operands, _require, _unary, convert_to_tensor, run_op
from engine.compat.tensorflow.ops import sigmoid, softplus, tanh  # noqa: F401  (tf.nn has them too)

__all__ = ["relu", "relu6", "leaky_relu", "sigmoid", "tanh", "softplus", "softmax", "log_softmax", "bias_add",
           "l2_loss", "sigmoid_cross_entropy_with_logits", "softmax_cross_entropy_with_logits",
           "sparse_softmax_cross_entropy_with_logits"]

relu = _unary("Relu", lambda F, x: F.relu(x))
relu6 = _unary("Relu6", lambda F, x: F.clamp(x, min=0.0 if x.dtype.kind == "f" else 0,
                                             max=6.0 if x.dtype.kind == "f" else 6))


def leaky_relu(features, alpha=0.2, name=None):
    x = convert_to_tensor(features)
    _require(x, "f", "LeakyRelu")
    return run_op("LeakyRelu", name, lambda F, x: F.where(F.gt(x, 0.0), x, F.mul(x, float(alpha))), [x])


def _axis_op(tf_type, engine_op):
    def op(logits, axis=None, name=None):
        x = convert_to_tensor(logits)
        _require(x, "f", tf_type)
        dim = -1 if axis is None else int(axis)
        return run_op(tf_type, name or tf_type, lambda F, x: getattr(F, engine_op)(x, dim=dim), [x])
    return op


softmax = _axis_op("Softmax", "softmax")
log_softmax = _axis_op("LogSoftmax", "log_softmax")


def bias_add(value, bias, data_format=None, name=None):
    x, b = _operands("BiasAdd", [value, bias])
    return run_op("BiasAdd", name or "BiasAdd", lambda F, x, b: F.add(x, b), [x, b])


def l2_loss(t, name=None):
    x = convert_to_tensor(t)
    _require(x, "f", "L2Loss")
    return run_op("L2Loss", name, lambda F, x: F.mul(F.sum(F.mul(x, x)), 0.5), [x])


def sigmoid_cross_entropy_with_logits(labels=None, logits=None, name=None):
    z, x = _operands("SigmoidCrossEntropyWithLogits", [labels, logits])
    _require(x, "f", "SigmoidCrossEntropyWithLogits")

    def lower(F, z, x):
        # TF's stable form: max(x, 0) - x * z + log(1 + exp(-|x|))
        return F.add(F.sub(F.relu(x), F.mul(x, z)), F.softplus(F.neg(F.abs(x))))
    return run_op("logistic_loss", name, lower, [z, x])


def softmax_cross_entropy_with_logits(labels, logits, axis=-1, name=None):
    y, x = _operands("SoftmaxCrossEntropyWithLogits", [labels, logits])
    _require(x, "f", "SoftmaxCrossEntropyWithLogits")
    dim = int(axis)
    return run_op("SoftmaxCrossEntropyWithLogits", name,
                  lambda F, y, x: F.neg(F.sum(F.mul(y, F.log_softmax(x, dim=dim)), dim=dim)), [y, x])


def sparse_softmax_cross_entropy_with_logits(labels=None, logits=None, name=None):
    x = convert_to_tensor(logits)
    _require(x, "f", "SparseSoftmaxCrossEntropyWithLogits")
    y = convert_to_tensor(labels)
    if not y.dtype.is_integer:
        raise TypeError(f"labels must be an integer tensor (int32 or int64), got {y.dtype.name}")

    def lower(F, y, x):
        classes = int(x.shape[-1])
        onehot = F.to_dtype(F.one_hot(F.to_dtype(y, dtype="int64"), num_classes=classes), dtype=np.dtype(x.dtype).name)
        return F.neg(F.sum(F.mul(onehot, F.log_softmax(x, dim=-1)), dim=-1))
    return run_op("SparseSoftmaxCrossEntropyWithLogits", name, lower, [y, x])





from engine.compat.tensorflow._surface import unsupported_names  # noqa: E402

__getattr__ = unsupported_names("tf.nn", globals())
