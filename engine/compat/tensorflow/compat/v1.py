"""`tf.compat.v1`: the TF1 API — graphs, placeholders, sessions, and the switch out of eager mode.
Names not defined here resolve to the top-level `tf` names (TF1 had the same math ops)."""
from __future__ import annotations

from engine.compat.tensorflow import context
from engine.compat.tensorflow.graph import placeholder  # noqa: F401
from engine.compat.tensorflow.session import InteractiveSession, Session, get_default_session  # noqa: F401


def disable_eager_execution() -> None:
    """From here on, tf.constant, tf.add ... add nodes to the default graph; Session.run computes them."""
    context.state().eager = False


def enable_eager_execution(config=None, device_policy=None, execution_mode=None) -> None:
    context.state().eager = True


def disable_v2_behavior() -> None:
    disable_eager_execution()


def enable_v2_behavior() -> None:
    enable_eager_execution()


def executing_eagerly() -> bool:
    return context.executing_eagerly()


def get_default_graph():
    return context.state().default_graph


def reset_default_graph() -> None:
    st = context.state()
    if st.graph_stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs.")
    st.reset_default_graph()


def __getattr__(name: str):
    import engine.compat.tensorflow as tf
    if name.startswith("__"):
        raise AttributeError(name)
    return getattr(tf, name)
