"""`tf.keras`, a minimal subset for custom training loops: Dense layers, Sequential and subclassed
Models (call + trainable_variables), SGD/Adam optimizers, common losses and activations.
`compile`/`fit` are not here: write the loop with tf.GradientTape (what the page can show)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.keras import activations, layers, losses, optimizers  # noqa: F401
from engine.compat.tensorflow.keras.models import Model, Sequential  # noqa: F401

__getattr__ = unsupported_names("tf.keras", globals())
