"""`tf.io`: decode_raw (its string ops live in strings.py)."""
from __future__ import annotations

from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.strings import decode_raw  # noqa: F401

__getattr__ = unsupported_names("tf.io", globals())
