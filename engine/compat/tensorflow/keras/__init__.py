"""`tf.keras`, and Keras 3's own `import keras` (the same package, as TensorFlow 2.16+ makes
tf.keras Keras 3): Input, Sequential and functional / subclassed Models with compile / fit /
evaluate / predict and summary(), the common layers, losses, metrics, optimizers, callbacks,
initializers, regularizers, utils and ops. The modules import downward in this order:
initializers, regularizers, activations, base (Layer, Input), the layers (core, conv, rnn),
losses, metrics, optimizers, callbacks, display (what Keras prints), trainer, models.

Numbers: the computations are Keras' formulas on the engine, so gradients and updates are Keras';
initial weights, dropout masks and shuffles are drawn from the run's seeded numpy stream rather
than TensorFlow's Philox stream, so a seeded Keras program trains the same way on every run but
does not print the numbers real Keras prints."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras import (activations, backend, callbacks, initializers, layers,  # noqa: F401
                                            losses, metrics, models, ops, optimizers, regularizers, utils)
from engine.compat.tensorflow.keras.base import Input, KerasTensor, Layer  # noqa: F401
from engine.compat.tensorflow.keras.models import Model, Sequential  # noqa: F401

__version__ = "3.15.1+dagscope"

__getattr__ = unsupported_names("tf.keras", globals())
