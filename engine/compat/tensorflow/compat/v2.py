"""`tf.compat.v2`: the TF2 API, i.e. the top-level `tf` namespace."""
from __future__ import annotations


def __getattr__(name: str):
    import engine.compat.tensorflow as tf
    return getattr(tf, name)
