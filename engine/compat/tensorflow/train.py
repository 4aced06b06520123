"""`tf.train` (TF1): the gradient-descent optimizer, as graph ops (see training.py)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.training import GradientDescentOptimizer  # noqa: F401

__getattr__ = unsupported_names("tf.train", globals())
