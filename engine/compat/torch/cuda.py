"""`torch.cuda`: Dagscope runs on the CPU, so CUDA is reported absent (as on a machine without a GPU)."""
import types as _types
import warnings as _warnings

from engine.compat.torch import amp as _amp
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def manual_seed(seed: int) -> None:
    """Seeds nothing: there is no CUDA generator (PyTorch also ignores this call without a GPU)."""


def manual_seed_all(seed: int) -> None:
    """As manual_seed: no CUDA devices."""


def _grad_scaler(init_scale: float = 65536.0, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True):
    """torch.cuda.amp.GradScaler: deprecated for torch.amp.GradScaler('cuda'), which disables itself here."""
    _warnings.warn("`torch.cuda.amp.GradScaler(args...)` is deprecated. Please use `torch.amp.GradScaler('cuda', "
                   "args...)` instead.", FutureWarning, stacklevel=2)
    return _amp.GradScaler("cuda", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


# torch.cuda.amp: only the scaler (autocast is mixed precision on a GPU: out of scope)
amp = _types.ModuleType("torch.cuda.amp", "torch.cuda.amp: its GradScaler, which disables itself without CUDA.")
amp.GradScaler = _grad_scaler
amp.__getattr__ = _unsupported_getattr("torch.cuda.amp", vars(amp))

__getattr__ = _unsupported_getattr("torch.cuda", globals())
