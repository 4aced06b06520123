"""`tf.keras`, and Keras 3's own `import keras` (the same package, as TensorFlow 2.16+ makes
tf.keras Keras 3): Input, Sequential and functional / subclassed Models with compile / fit /
evaluate / predict and summary(), the common layers, losses, metrics, optimizers, callbacks,
initializers, regularizers, utils, ops and random. The modules import downward in this order:
initializers, regularizers, activations, base (Layer, Input), the layers (core, conv, rnn),
losses, metrics, optimizers, callbacks, display (what Keras prints), trainer, models.

Numbers: the computations are Keras' formulas on the engine, so outputs, gradients and updates
are Keras' (tests/engine/tf_sweep 30-34 compare them with Keras 3.15 / TF 2.21). Initial weights
are Keras': seeds from Python's random (keras.utils.set_random_seed), values from TF's stateless
Philox stream (philox.py). Dropout's masks are eager Keras' (inside a real `fit`, compiled by XLA,
they are ThreeFry's, so a fit with Dropout differs); fit's shuffle is the run's numpy stream, not
tf.data's; an Embedding's gradient is dense (TF's is sparse, which Keras' RMSprop/Adam square
per occurrence of a repeated id)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras import (activations, backend, callbacks, datasets, initializers,  # noqa: F401
                                            layers, losses, metrics, models, ops, optimizers, random, regularizers,
                                            utils)
from engine.compat.tensorflow.keras.base import Input, KerasTensor, Layer  # noqa: F401
from engine.compat.tensorflow.keras.models import Model, Sequential  # noqa: F401

__version__ = "3.15.1+dagscope"

__getattr__ = unsupported_names("tf.keras", globals())
