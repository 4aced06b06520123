"""`tf.compat.v1`: the TF1 API — graphs, placeholders, sessions, and the switch out of eager mode.
Names not defined here resolve to the top-level `tf` names (TF1 had the same math ops)."""
from __future__ import annotations

from engine.compat.tensorflow import _api
from engine.compat.tensorflow.context import (disable_eager_execution, enable_eager_execution,  # noqa: F401
                                              executing_eagerly)
from engine.compat.tensorflow.graph import get_default_graph, placeholder, reset_default_graph  # noqa: F401
from engine.compat.tensorflow.session import InteractiveSession, Session, get_default_session  # noqa: F401


def disable_v2_behavior() -> None:
    disable_eager_execution()


def enable_v2_behavior() -> None:
    enable_eager_execution()


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(_api, name)
