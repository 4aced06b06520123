"""`keras.backend`: the few names lessons call (clear_session, floatx, epsilon)."""
from __future__ import annotations

from engine.compat.tensorflow import context
from engine.compat.tensorflow._surface import unsupported_names


def clear_session(free_memory=True) -> None:
    """Resets Keras' layer names (dense, dense_1 ...) as Keras does."""
    context.state().keras_names.clear()


def floatx() -> str:
    return "float32"


def epsilon() -> float:
    return 1e-7


def backend() -> str:
    return "tensorflow"


def image_data_format() -> str:
    return "channels_last"


__getattr__ = unsupported_names("tf.keras.backend", globals())
