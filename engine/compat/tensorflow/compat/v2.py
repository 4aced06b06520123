"""`tf.compat.v2`: the TF2 API, i.e. the top-level `tf` namespace."""
from __future__ import annotations

from engine.compat.tensorflow import _api


def __getattr__(name: str):
    return getattr(_api, name)
