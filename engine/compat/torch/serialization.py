"""`torch.serialization`: the globals a weights-only torch.load may rebuild besides tensors and
containers (a whole pickled model's classes), as PyTorch 2.6+ lets a program allow them."""
import contextlib as _contextlib

from engine.compat.torch._serialization import _allowed, load, save  # noqa: F401
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr


def add_safe_globals(safe_globals: list) -> None:
    _allowed.extend(safe_globals)


def get_safe_globals() -> list:
    return list(_allowed)


def clear_safe_globals() -> None:
    _allowed.clear()


@_contextlib.contextmanager
def safe_globals(safe_globals: list):
    """Allow `safe_globals` in torch.load(weights_only=True) within the with-block."""
    before = len(_allowed)
    _allowed.extend(safe_globals)
    try:
        yield
    finally:
        del _allowed[before:]


__getattr__ = _unsupported_getattr("torch.serialization", globals())
