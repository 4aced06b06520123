"""`torch.cuda`: Dagscope runs on the CPU, so CUDA is reported absent (as on a machine without a GPU)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Seeds nothing: there is no CUDA generator (PyTorch also ignores this call without a GPU)."""


def manual_seed_all(seed: int) -> None:
    """As manual_seed: no CUDA devices."""


__getattr__ = _unsupported_getattr("torch.cuda", globals())
