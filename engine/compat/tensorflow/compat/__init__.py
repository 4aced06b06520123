"""`tf.compat`: `tf.compat.v1` (the TF1 API) and `tf.compat.v2` (the TF2 top level)."""
from __future__ import annotations

from engine.compat.tensorflow.compat import v1, v2  # noqa: F401
