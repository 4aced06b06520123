"""Keras' core layers: Dense, Activation, Dropout, Flatten, Reshape, RepeatVector, Permute,
LeakyReLU/ReLU/Softmax, Embedding, Lambda, the merge layers (Add, Concatenate ... and add/concatenate),
and the normalizations (BatchNormalization, LayerNormalization, Normalization with adapt).

Each computes with the TF facade's ops, so gradients come from the engine's autograd; Keras'
formulas are kept (BatchNormalization's moving averages with momentum 0.99 and epsilon 1e-3, the
biased batch variance; Normalization's max(sqrt(variance), epsilon))."""
from __future__ import annotations

import math

import numpy as np

from engine.compat.tensorflow import array_ops, dtypes, nn, ops
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.keras import activations, initializers, philox
from engine.compat.tensorflow.keras.base import Layer
from engine.errors import UnsupportedError


def value_of(v):
    """A weight's current value as a tensor (a read a GradientTape sees)."""
    return ops.convert_to_tensor(v)


class Dense(Layer):
    """y = activation(x @ kernel + bias), on the last axis of an input of any rank."""

    def __init__(self, units, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        self.units = int(units)
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        # resolved now, as Keras does: an unseeded random initializer takes its seed when it is made
        self.kernel_initializer = initializers.get(kernel_initializer)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = kernel_regularizer
        self.bias = None

    def build(self, input_shape) -> None:
        self.kernel = self.add_weight(shape=(int(input_shape[-1]), self.units), initializer=self.kernel_initializer,
                                      name="kernel", regularizer=self.kernel_regularizer)
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.units,), initializer=self.bias_initializer, name="bias")
        self.built = True

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        if x.shape.rank > 2:
            lead = list(x.shape.as_list()[:-1])
            y = ops.matmul(array_ops.reshape(x, [-1, x.shape[-1]]), self.kernel)
            y = array_ops.reshape(y, lead + [self.units])
        else:
            y = ops.matmul(x, self.kernel)
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)


class Activation(Layer):
    def __init__(self, activation, **kwargs):
        super().__init__(**kwargs)
        self.activation = activations.get(activation)

    def call(self, inputs):
        return self.activation(inputs)


class ReLU(Layer):
    def __init__(self, max_value=None, negative_slope=0.0, threshold=0.0, **kwargs):
        super().__init__(**kwargs)
        self.max_value, self.negative_slope, self.threshold = max_value, negative_slope, threshold

    def call(self, inputs):
        return activations.relu(inputs, self.negative_slope, self.max_value, self.threshold)


class LeakyReLU(Layer):
    """Keras 3's default negative_slope is 0.3 (`alpha` is its Keras 2 name)."""

    def __init__(self, negative_slope=0.3, alpha=None, **kwargs):
        super().__init__(**kwargs)
        self.negative_slope = float(alpha if alpha is not None else negative_slope)

    def call(self, inputs):
        return nn.leaky_relu(inputs, alpha=self.negative_slope)


class Softmax(Layer):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def call(self, inputs):
        return nn.softmax(inputs, axis=self.axis)


class Dropout(Layer):
    """In training, keeps each value whose uniform draw is >= rate and scales it by 1 / (1 - rate);
    at inference it is the identity. The draws are TensorFlow's stateless_dropout's: Philox with the
    layer's seed generator ([seed, n] for its n-th call, the seed taken from Python's random when
    the layer is made, as Keras 3's SeedGenerator does)."""

    def __init__(self, rate, noise_shape=None, seed=None, **kwargs):
        super().__init__(**kwargs)
        if not 0 <= float(rate) <= 1:
            raise ValueError(f"Invalid value received for argument `rate`. Expected a float value between 0 and "
                             f"1. Received: rate={rate}")
        self.rate, self.noise_shape, self.seed = float(rate), noise_shape, seed
        self._seed_state = [int(seed) if seed is not None else initializers.make_default_seed(), 0] \
            if self.rate > 0 else None

    def call(self, inputs, training=False):
        x = ops.convert_to_tensor(inputs)
        if not training or self.rate == 0:
            return x
        shape = tuple(x.shape.as_list()) if self.noise_shape is None else \
            tuple(s if n is None else n for s, n in zip(x.shape.as_list(), self.noise_shape))
        if self.rate >= 1:
            return x * EagerTensor(np.zeros(shape, x.dtype.np))
        seed = list(self._seed_state)
        self._seed_state[1] += 1
        keep = (philox.uniform(shape, seed) >= np.float32(self.rate)).astype(x.dtype.np)
        return x * float(np.float32(1.0) / (np.float32(1.0) - np.float32(self.rate))) * EagerTensor(keep)


class Flatten(Layer):
    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        return array_ops.reshape(x, [x.shape[0], -1]) if x.shape.rank > 1 else array_ops.reshape(x, [-1, 1])


class Reshape(Layer):
    def __init__(self, target_shape, **kwargs):
        super().__init__(**kwargs)
        self.target_shape = tuple(int(s) for s in target_shape)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        return array_ops.reshape(x, [x.shape[0], *self.target_shape])


class Permute(Layer):
    def __init__(self, dims, **kwargs):
        super().__init__(**kwargs)
        self.dims = tuple(int(d) for d in dims)

    def call(self, inputs):
        return array_ops.transpose(inputs, perm=[0, *self.dims])


class RepeatVector(Layer):
    """(batch, features) -> (batch, n, features)."""

    def __init__(self, n, **kwargs):
        super().__init__(**kwargs)
        self.n = int(n)

    def call(self, inputs):
        x = array_ops.expand_dims(ops.convert_to_tensor(inputs), 1)
        return x * array_ops.ones([1, self.n, 1], dtype=x.dtype)


class Rescaling(Layer):
    """x * scale + offset (image tutorials' `Rescaling(1. / 255)`)."""

    def __init__(self, scale, offset=0.0, **kwargs):
        super().__init__(**kwargs)
        self.scale, self.offset = float(scale), float(offset)

    def call(self, inputs):
        return ops.convert_to_tensor(inputs) * self.scale + self.offset


class Lambda(Layer):
    def __init__(self, function, output_shape=None, mask=None, arguments=None, **kwargs):
        super().__init__(**kwargs)
        self.function, self.arguments = function, arguments or {}

    def call(self, inputs):
        return self.function(inputs, **self.arguments)


class Identity(Layer):
    def call(self, inputs):
        return inputs


class Embedding(Layer):
    """Row lookup in an (input_dim, output_dim) table, initialised uniform in [-0.05, 0.05]."""

    def __init__(self, input_dim, output_dim, embeddings_initializer="uniform", embeddings_regularizer=None,
                 mask_zero=False, input_length=None, **kwargs):
        super().__init__(**kwargs)
        if mask_zero:
            raise UnsupportedError("Embedding(mask_zero=True) is not supported by Dagscope: masking is not "
                                   "propagated to the layers that follow (their numbers would differ from Keras')")
        self.input_dim, self.output_dim = int(input_dim), int(output_dim)
        init = embeddings_initializer
        self.embeddings_initializer = initializers.RandomUniform() if init == "uniform" else initializers.get(init)

    def build(self, input_shape) -> None:
        self.embeddings = self.add_weight(shape=(self.input_dim, self.output_dim),
                                          initializer=self.embeddings_initializer, name="embeddings")
        self.built = True

    def call(self, inputs):
        ids = ops.convert_to_tensor(inputs)
        if ids.dtype.is_floating:
            ids = ops.cast(ids, dtypes.int32)
        arr = ids.numpy()
        if np.size(arr) and (np.min(arr) < 0 or np.max(arr) >= self.input_dim):
            bad = int(np.max(arr)) if np.max(arr) >= self.input_dim else int(np.min(arr))
            raise ops.InvalidArgumentError(f"indices[...] = {bad} is not in [0, {self.input_dim}) [Op:ResourceGather]")
        table = value_of(self.embeddings)
        return ops.run_op("ResourceGather", "embedding_lookup",
                          lambda F, i, w: F.embedding(F.to_dtype(i, dtype="int64"), w, padding_idx=None), [ids, table])


# ---- merging ----------------------------------------------------------------------------------------

class _Merge(Layer):
    def call(self, inputs):
        if not isinstance(inputs, (list, tuple)) or len(inputs) < 1:
            raise ValueError(f"A merge layer should be called on a list of inputs. Received: inputs={inputs}")
        return self._merge([ops.convert_to_tensor(x) for x in inputs])


class Add(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out


class Subtract(_Merge):
    def _merge(self, xs):
        return xs[0] - xs[1]


class Multiply(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = out * x
        return out


class Average(_Merge):
    def _merge(self, xs):
        return Add._merge(self, xs) / float(len(xs))


class Maximum(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = ops.maximum(out, x)
        return out


class Minimum(_Merge):
    def _merge(self, xs):
        out = xs[0]
        for x in xs[1:]:
            out = ops.minimum(out, x)
        return out


class Concatenate(_Merge):
    def __init__(self, axis=-1, **kwargs):
        super().__init__(**kwargs)
        self.axis = axis

    def _merge(self, xs):
        return array_ops.concat(xs, axis=self.axis)


class Dot(_Merge):
    def __init__(self, axes, normalize=False, **kwargs):
        super().__init__(**kwargs)
        if normalize or axes not in (1, -1, (1, 1), [1, 1]):
            raise UnsupportedError("Dot is supported by Dagscope for 2-D inputs with axes=1 only")

    def _merge(self, xs):
        return ops.reduce_sum(xs[0] * xs[1], axis=-1, keepdims=True)


def add(inputs, **kwargs):
    return Add(**kwargs)(inputs)


def subtract(inputs, **kwargs):
    return Subtract(**kwargs)(inputs)


def multiply(inputs, **kwargs):
    return Multiply(**kwargs)(inputs)


def average(inputs, **kwargs):
    return Average(**kwargs)(inputs)


def maximum(inputs, **kwargs):
    return Maximum(**kwargs)(inputs)


def minimum(inputs, **kwargs):
    return Minimum(**kwargs)(inputs)


def concatenate(inputs, axis=-1, **kwargs):
    return Concatenate(axis=axis, **kwargs)(inputs)


# ---- normalization ----------------------------------------------------------------------------------

def _reduce_axes(rank: int, axis) -> list:
    keep = {a % rank for a in (axis if isinstance(axis, (list, tuple)) else [axis])}
    return [a for a in range(rank) if a not in keep]


def _broadcast(v, rank: int, axis: int):
    shape = [1] * rank
    shape[axis % rank] = -1
    return array_ops.reshape(value_of(v) if not isinstance(v, np.ndarray) else EagerTensor(v), shape)


class BatchNormalization(Layer):
    """Training: (x - batch mean) / sqrt(batch variance + epsilon) * gamma + beta, and
    moving = moving * momentum + batch statistic * (1 - momentum); inference uses the moving ones."""

    def __init__(self, axis=-1, momentum=0.99, epsilon=0.001, center=True, scale=True,
                 beta_initializer="zeros", gamma_initializer="ones", moving_mean_initializer="zeros",
                 moving_variance_initializer="ones", **kwargs):
        super().__init__(**kwargs)
        self.axis, self.momentum, self.epsilon = axis, float(momentum), float(epsilon)
        self.center, self.scale = center, scale
        self._inits = (gamma_initializer, beta_initializer, moving_mean_initializer, moving_variance_initializer)

    def build(self, input_shape) -> None:
        n = (int(input_shape[self.axis]),)
        gamma, beta, mean, var = self._inits
        self.gamma = self.add_weight(shape=n, initializer=gamma, name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=n, initializer=beta, name="beta") if self.center else None
        self.moving_mean = self.add_weight(shape=n, initializer=mean, name="moving_mean", trainable=False)
        self.moving_variance = self.add_weight(shape=n, initializer=var, name="moving_variance", trainable=False)
        self.built = True

    def call(self, inputs, training=False):
        x = ops.convert_to_tensor(inputs)
        rank = x.shape.rank
        if training and self.trainable:
            axes = _reduce_axes(rank, self.axis)
            mean = ops.reduce_mean(x, axis=axes, keepdims=True)
            var = ops.reduce_mean(ops.square(x - mean), axis=axes, keepdims=True)
            m = self.momentum
            self.moving_mean.assign(self.moving_mean.numpy() * m + array_ops.reshape(mean, [-1]).numpy() * (1 - m))
            self.moving_variance.assign(self.moving_variance.numpy() * m
                                        + array_ops.reshape(var, [-1]).numpy() * (1 - m))
        else:
            mean = _broadcast(self.moving_mean, rank, self.axis)
            var = _broadcast(self.moving_variance, rank, self.axis)
        y = (x - mean) * ops.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            y = y * _broadcast(self.gamma, rank, self.axis)
        if self.beta is not None:
            y = y + _broadcast(self.beta, rank, self.axis)
        return y


class LayerNormalization(Layer):
    def __init__(self, axis=-1, epsilon=0.001, center=True, scale=True, **kwargs):
        super().__init__(**kwargs)
        self.axis, self.epsilon, self.center, self.scale = axis, float(epsilon), center, scale

    def build(self, input_shape) -> None:
        n = (int(input_shape[self.axis]),)
        self.gamma = self.add_weight(shape=n, initializer="ones", name="gamma") if self.scale else None
        self.beta = self.add_weight(shape=n, initializer="zeros", name="beta") if self.center else None
        self.built = True

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        rank = x.shape.rank
        mean = ops.reduce_mean(x, axis=self.axis, keepdims=True)
        var = ops.reduce_mean(ops.square(x - mean), axis=self.axis, keepdims=True)
        y = (x - mean) * ops.rsqrt(var + self.epsilon)
        if self.gamma is not None:
            y = y * _broadcast(self.gamma, rank, self.axis)
        if self.beta is not None:
            y = y + _broadcast(self.beta, rank, self.axis)
        return y


class Normalization(Layer):
    """(x - mean) / max(sqrt(variance), epsilon) with the mean and variance given or learnt by `adapt`.
    As in Keras 3, `layer.mean` / `layer.variance` are tensors of the broadcast shape ((1, n) for rows
    of n features), remade after each adapt from the weights that hold them (named mean, variance)."""

    def __init__(self, axis=-1, mean=None, variance=None, invert=False, **kwargs):
        super().__init__(**kwargs)
        if invert:
            raise UnsupportedError("Normalization(invert=True) is not supported by Dagscope")
        self.axis = axis
        self._given = (mean, variance)
        self.mean = self.variance = None

    def build(self, input_shape) -> None:
        self._rank = len(input_shape)
        n = (int(input_shape[self.axis]),)
        if self._given[0] is not None:        # given: constants, not weights (Keras counts no parameters)
            self.adapt_mean = np.broadcast_to(np.asarray(self._given[0], np.float32), n).copy()
            self.adapt_variance = np.broadcast_to(np.asarray(self._given[1], np.float32), n).copy()
        else:
            self.adapt_mean = self.add_weight(shape=n, initializer="zeros", name="mean", trainable=False)
            self.adapt_variance = self.add_weight(shape=n, initializer="ones", name="variance", trainable=False)
            self.count = self.add_weight(shape=(), initializer="zeros", name="count", trainable=False,
                                         dtype="int64")
        self.built = True
        self._finalize()

    def _finalize(self) -> None:
        self.mean = _broadcast(self.adapt_mean, self._rank, self.axis)
        self.variance = _broadcast(self.adapt_variance, self._rank, self.axis)

    def adapt(self, data, batch_size=None, steps=None) -> None:
        if hasattr(data, "_dagscope_batches"):
            data = np.concatenate([np.asarray(b[0] if isinstance(b, tuple) else b) for b in data._dagscope_batches()])
        arr = np.asarray(data, np.float32)
        if arr.ndim == 1:
            arr = arr[:, None]
        if not self.built:
            self._build_shape = (None,) + arr.shape[1:]
            self.build(self._build_shape)
            self.built = True
        if self._given[0] is not None:
            raise ValueError("Cannot adapt a Normalization layer whose mean and variance were given.")
        axes = tuple(_reduce_axes(arr.ndim, self.axis))
        self.adapt_mean.assign(arr.mean(axis=axes).astype(np.float32))
        self.adapt_variance.assign(arr.var(axis=axes).astype(np.float32))
        self.count.assign(np.int64(math.prod(arr.shape[a] for a in axes)))
        self._finalize()

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        rank = x.shape.rank
        std = ops.maximum(ops.sqrt(_broadcast(self.adapt_variance, rank, self.axis)), 1e-7)
        return (x - _broadcast(self.adapt_mean, rank, self.axis)) / std
