"""`tf.train` (TF1): optimizers as graph ops (see training.py)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.training import (AdamOptimizer, GradientDescentOptimizer,  # noqa: F401
                                               MomentumOptimizer, Optimizer)

__getattr__ = unsupported_names("tf.train", globals())
