"""`tf.image`: what the guides use of it — adjust_contrast, whose gradient TensorFlow does not define
(the autodiff guide's lesson: tape.gradient through it raises LookupError, and so it does here)."""
from __future__ import annotations

import numpy as np

from engine import autograd
from engine.autograd_function import Function
from engine.compat.tensorflow import context
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor, as_eager
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.errors import UnsupportedError


class AdjustContrastv2(Function):
    """TF's op of that name: per image and channel, (x - mean) * factor + mean, the mean over height
    and width. It has no gradient in TensorFlow's registry, so its backward says what TF says."""

    @staticmethod
    def forward(ctx, images, factor):
        x, f = images.array, factor.array
        mean = x.mean(axis=(-3, -2), keepdims=True, dtype=x.dtype)
        return EagerTensor(((x - mean) * f + mean).astype(x.dtype, copy=False))

    @staticmethod
    def backward(ctx, grad):
        raise LookupError("gradient registry has no entry for: AdjustContrastv2")


def adjust_contrast(images, contrast_factor):
    """`tf.image.adjust_contrast` of float images [..., height, width, channels]."""
    if context.building_graph() or context.state().tracing is not None:
        raise UnsupportedError("tf.image.adjust_contrast inside a tf.function or a TF1 graph is not supported by "
                               "Dagscope (eagerly it is)")
    images = images._dagscope_value() if hasattr(images, "_dagscope_value") else convert_to_tensor(images)
    if images.dtype.kind != "f":
        raise UnsupportedError(f"tf.image.adjust_contrast of {images.dtype.name} images is not supported by Dagscope "
                               "(float images are: tf.image.convert_image_dtype first)")
    if images.shape.rank < 3:
        raise ValueError(f"'image' (shape {images.shape}) must be at least three-dimensional.")
    factor = convert_to_tensor(contrast_factor, dtype=images.dtype)   # (a tf.Variable: read, so a tape watches it)
    if factor.shape.rank != 0:
        raise ValueError(f"Shape must be rank 0 but is rank {factor.shape.rank} for 'contrast_factor'")
    previous = autograd._GradMode.enabled
    autograd._GradMode.enabled = bool(context.state().tapes)    # as ops.run_op: recorded only under a tape
    try:
        return as_eager(AdjustContrastv2.apply(images, factor))
    finally:
        autograd._GradMode.enabled = previous

__getattr__ = unsupported_names("tf.image", globals())
