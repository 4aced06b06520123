"""Keras' convolution and pooling layers (channels last, as Keras): Conv1D, Conv2D,
Conv2DTranspose, MaxPooling1D/2D, AveragePooling1D/2D, GlobalAveragePooling1D/2D,
GlobalMaxPooling1D/2D, UpSampling1D/2D, ZeroPadding2D.

Each is one TF op lowering onto the registry's channels-first conv2d / max_pool2d / avg_pool2d
(and conv2d_input_grad for the transposed convolution), with transposes around it; 'same'
padding is TensorFlow's (the extra row or column of an odd total goes after, at the end), made
by concatenating zeros (or -inf for max pooling) when it is not symmetric. A 1-D layer is the
2-D one on a height-1 image."""
from __future__ import annotations

import math

import numpy as np

from engine.compat.tensorflow import array_ops, ops
from engine.compat.tensorflow.keras import activations, initializers
from engine.compat.tensorflow.keras.base import Layer
from engine.compat.tensorflow.keras.layers_core import value_of
from engine.compat.tensorflow.ops import typed_constant
from engine.errors import UnsupportedError

NHWC_TO_NCHW, NCHW_TO_NHWC = (0, 3, 1, 2), (0, 2, 3, 1)


def _tuple(v, n: int) -> tuple:
    return tuple(int(i) for i in v) if isinstance(v, (tuple, list)) else (int(v),) * n


def _same_pads(size: int, kernel: int, stride: int) -> tuple[int, int]:
    total = max((math.ceil(size / stride) - 1) * stride + kernel - size, 0)
    return total // 2, total - total // 2


def _padding(padding: str, sizes, kernel, stride) -> list[tuple[int, int]]:
    padding = padding.lower()
    if padding == "valid":
        return [(0, 0)] * len(sizes)
    if padding == "same":
        return [_same_pads(s, k, st) for s, k, st in zip(sizes, kernel, stride)]
    raise ValueError(f"Invalid padding {padding!r}: expected 'valid' or 'same'")


def _pad_nchw(F, x, shape: list, pads, value: float, dtype):
    """Pad the two spatial dims (2, 3) of an NCHW value with constants (zeros, or -inf)."""
    for dim, (before, after) in zip((2, 3), pads):
        parts = []
        for n in (before, after):
            block = list(shape)
            block[dim] = n
            parts.append(typed_constant(F, np.full(block, value, dtype)) if n else None)
        x = F.cat(*[p for p in (parts[0], x, parts[1]) if p is not None], dim=dim)
        shape[dim] += before + after
    return x


def conv2d_nhwc(x, kernel, strides, pads, name="Conv2D"):
    """x (N, H, W, C) * kernel (kh, kw, C, O) -> (N, OH, OW, O)."""
    symmetric = all(a == b for a, b in pads)
    n, h, w, c = x.shape.as_list()
    dtype = x.dtype.np

    def lower(F, x, k):
        xc = F.permute(x, dims=NHWC_TO_NCHW)
        if not symmetric:
            xc = _pad_nchw(F, xc, [n, c, h, w], pads, 0.0, dtype)
        out = F.conv2d(xc, F.permute(k, dims=(3, 2, 0, 1)), stride=tuple(strides),
                       padding=tuple(p[0] for p in pads) if symmetric else (0, 0))
        return F.permute(out, dims=NCHW_TO_NHWC)
    return ops.run_op(name, name, lower, [x, kernel])


class _Conv(Layer):
    rank = 2

    def __init__(self, filters, kernel_size, strides=1, padding="valid", data_format=None, dilation_rate=1,
                 groups=1, activation=None, use_bias=True, kernel_initializer="glorot_uniform",
                 bias_initializer="zeros", kernel_regularizer=None, bias_regularizer=None,
                 activity_regularizer=None, kernel_constraint=None, bias_constraint=None, **kwargs):
        super().__init__(**kwargs)
        if data_format not in (None, "channels_last"):
            raise UnsupportedError(f"{type(self).__name__}(data_format={data_format!r}) is not supported by Dagscope "
                                   "(channels_last only)")
        if _tuple(dilation_rate, self.rank) != (1,) * self.rank or groups != 1:
            raise UnsupportedError(f"{type(self).__name__} with dilation_rate or groups is not supported by Dagscope")
        self.filters = int(filters)
        self.kernel_size = _tuple(kernel_size, self.rank)
        self.strides = _tuple(strides, self.rank)
        self.padding = padding.lower()
        self.activation = activations.get(activation)
        self.use_bias = use_bias
        self.kernel_initializer = initializers.get(kernel_initializer)      # (seeded now, as Keras)
        self.bias_initializer = initializers.get(bias_initializer)
        self.kernel_regularizer = kernel_regularizer
        self.bias = None

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, channels, self.filters)

    def build(self, input_shape) -> None:
        self.kernel = self.add_weight(shape=self._kernel_shape(int(input_shape[-1])),
                                      initializer=self.kernel_initializer, name="kernel",
                                      regularizer=self.kernel_regularizer)
        if self.use_bias:
            self.bias = self.add_weight(shape=(self.filters,), initializer=self.bias_initializer, name="bias")
        self.built = True

    def _finish(self, y):
        if self.bias is not None:
            y = y + self.bias
        return self.activation(y)


class Conv2D(_Conv):
    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        pads = _padding(self.padding, x.shape.as_list()[1:3], self.kernel_size, self.strides)
        return self._finish(conv2d_nhwc(x, value_of(self.kernel), self.strides, pads))


class Conv1D(_Conv):
    """(N, steps, C) -> (N, new steps, filters); padding 'causal' pads kernel_size - 1 steps before."""
    rank = 1

    def call(self, inputs):
        x = array_ops.expand_dims(ops.convert_to_tensor(inputs), 1)
        steps = x.shape.as_list()[2]
        if self.padding == "causal":
            pads = [(self.kernel_size[0] - 1, 0)]
        else:
            pads = _padding(self.padding, [steps], self.kernel_size, self.strides)
        kernel = array_ops.expand_dims(value_of(self.kernel), 0)
        y = conv2d_nhwc(x, kernel, (1, self.strides[0]), [(0, 0)] + pads, name="Conv1D")
        return self._finish(array_ops.squeeze(y, axis=1))


class Conv2DTranspose(_Conv):
    """The gradient of a convolution with respect to its input (the registry's conv2d_input_grad),
    then cropped as TensorFlow crops 'same': output size = size * stride ('same') or
    (size - 1) * stride + kernel ('valid')."""

    def __init__(self, filters, kernel_size, strides=1, padding="valid", output_padding=None, **kwargs):
        super().__init__(filters, kernel_size, strides, padding, **kwargs)
        if output_padding is not None:
            raise UnsupportedError("Conv2DTranspose(output_padding=...) is not supported by Dagscope")

    def _kernel_shape(self, channels: int) -> tuple:
        return (*self.kernel_size, self.filters, channels)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        n, h, w, _ = x.shape.as_list()
        (kh, kw), (sh, sw) = self.kernel_size, self.strides
        full = ((h - 1) * sh + kh, (w - 1) * sw + kw)
        if self.padding == "same":
            crops = [_same_pads(size * s, k, s) for size, k, s in zip((h, w), (kh, kw), (sh, sw))]
        else:
            crops = [(0, 0), (0, 0)]
        filters = self.filters

        def lower(F, x, k):
            g = F.permute(x, dims=NHWC_TO_NCHW)
            out = F.conv2d_input_grad(g, F.permute(k, dims=(3, 2, 0, 1)), stride=(sh, sw), padding=(0, 0),
                                      input_shape=(n, filters, *full))
            for dim, (before, after), size in zip((2, 3), crops, full):
                if before or after:
                    out = F.slice(out, dim=dim, start=before, end=size - after, step=1)
            return F.permute(out, dims=NCHW_TO_NHWC)
        return self._finish(ops.run_op("Conv2DBackpropInput", "conv2d_transpose", lower, [x, value_of(self.kernel)]))


# ---- pooling ----------------------------------------------------------------------------------------

class _Pool2D(Layer):
    op = "max_pool2d"
    fill = -np.inf

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = _tuple(pool_size, 2)
        self.strides = _tuple(strides, 2) if strides is not None else self.pool_size
        self.padding = padding.lower()

    def call(self, inputs):
        return pool_nhwc(ops.convert_to_tensor(inputs), self.op, self.fill, self.pool_size, self.strides,
                         self.padding, type(self).__name__)


def pool_nhwc(x, op, fill, pool, strides, padding, tf_name):
    pads = _padding(padding, x.shape.as_list()[1:3], pool, strides)
    if any(pads_ != (0, 0) for pads_ in pads) and op == "avg_pool2d":
        raise UnsupportedError("AveragePooling with padding='same' that needs padding is not supported by Dagscope")

    n, h, w, c = x.shape.as_list()
    dtype = x.dtype.np

    def lower(F, x):
        xc = F.permute(x, dims=NHWC_TO_NCHW)
        if any(p != (0, 0) for p in pads):
            xc = _pad_nchw(F, xc, [n, c, h, w], pads, fill, dtype)
        out = getattr(F, op)(xc, kernel_size=tuple(pool), stride=tuple(strides), padding=(0, 0))
        return F.permute(out, dims=NCHW_TO_NHWC)
    return ops.run_op(tf_name, tf_name, lower, [x])


class MaxPooling2D(_Pool2D):
    pass


class AveragePooling2D(_Pool2D):
    op = "avg_pool2d"
    fill = 0.0


class _Pool1D(Layer):
    op, fill = "max_pool2d", -np.inf

    def __init__(self, pool_size=2, strides=None, padding="valid", data_format=None, **kwargs):
        super().__init__(**kwargs)
        self.pool_size = int(pool_size[0] if isinstance(pool_size, (tuple, list)) else pool_size)
        self.strides = int(strides if strides is not None else self.pool_size)
        self.padding = padding.lower()

    def call(self, inputs):
        x = array_ops.expand_dims(ops.convert_to_tensor(inputs), 1)
        y = pool_nhwc(x, self.op, self.fill, (1, self.pool_size), (1, self.strides), self.padding,
                      type(self).__name__)
        return array_ops.squeeze(y, axis=1)


class MaxPooling1D(_Pool1D):
    pass


class AveragePooling1D(_Pool1D):
    op, fill = "avg_pool2d", 0.0


class _Global(Layer):
    axes = (1, 2)
    reduce = staticmethod(ops.reduce_mean)

    def __init__(self, data_format=None, keepdims=False, **kwargs):
        super().__init__(**kwargs)
        self.keepdims = keepdims

    def call(self, inputs):
        return type(self).reduce(inputs, axis=list(self.axes), keepdims=self.keepdims)


class GlobalAveragePooling2D(_Global):
    pass


class GlobalMaxPooling2D(_Global):
    reduce = staticmethod(ops.reduce_max)


class GlobalAveragePooling1D(_Global):
    axes = (1,)


class GlobalMaxPooling1D(_Global):
    axes = (1,)
    reduce = staticmethod(ops.reduce_max)


class UpSampling2D(Layer):
    """Nearest-neighbour: every pixel repeated size[0] x size[1] times (a broadcast, so its gradient sums)."""

    def __init__(self, size=(2, 2), data_format=None, interpolation="nearest", **kwargs):
        super().__init__(**kwargs)
        if interpolation != "nearest":
            raise UnsupportedError(f"UpSampling2D(interpolation={interpolation!r}) is not supported by Dagscope")
        self.size = _tuple(size, 2)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        n, h, w, c = x.shape.as_list()
        (a, b) = self.size
        y = array_ops.reshape(x, [-1, h, 1, w, 1, c]) * array_ops.ones([1, 1, a, 1, b, 1], dtype=x.dtype)
        return array_ops.reshape(y, [-1, h * a, w * b, c])


class UpSampling1D(Layer):
    def __init__(self, size=2, **kwargs):
        super().__init__(**kwargs)
        self.size = int(size)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        n, steps, c = x.shape.as_list()
        y = array_ops.reshape(x, [-1, steps, 1, c]) * array_ops.ones([1, 1, self.size, 1], dtype=x.dtype)
        return array_ops.reshape(y, [-1, steps * self.size, c])


class ZeroPadding2D(Layer):
    def __init__(self, padding=(1, 1), data_format=None, **kwargs):
        super().__init__(**kwargs)
        if isinstance(padding, int):
            padding = ((padding, padding), (padding, padding))
        elif isinstance(padding[0], int):
            padding = ((padding[0], padding[0]), (padding[1], padding[1]))
        self.padding = tuple(tuple(int(v) for v in p) for p in padding)

    def call(self, inputs):
        x = ops.convert_to_tensor(inputs)
        pads = self.padding
        n, h, w, c = x.shape.as_list()
        dtype = x.dtype.np

        def lower(F, x):
            xc = F.permute(x, dims=NHWC_TO_NCHW)
            return F.permute(_pad_nchw(F, xc, [n, c, h, w], pads, 0.0, dtype), dims=NCHW_TO_NHWC)
        return ops.run_op("Pad", "zero_padding2d", lower, [x])
