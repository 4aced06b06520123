"""`torch.accelerator`: Dagscope runs on the CPU, so no accelerator is available — the answers of
PyTorch on a machine without one (`current_accelerator()` is None; asking for its device fails)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    return False


def current_accelerator(check_available: bool = False):
    return None


def device_count() -> int:
    return 0


def current_device_index() -> int:
    raise RuntimeError(_NONE)


current_device_idx = current_device_index


def set_device_index(device) -> None:
    raise RuntimeError(_NONE)


set_device_idx = set_device_index


def synchronize(device=None) -> None:
    raise RuntimeError(_NONE)


__getattr__ = _unsupported_getattr("torch.accelerator", globals())
