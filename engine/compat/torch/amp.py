"""`torch.amp`: GradScaler as PyTorch has it on a machine without CUDA — the default ('cuda') scaler
warns and disables itself, so a program that builds one unconditionally (nanoGPT) trains unscaled.
Scaling on the CPU (GradScaler('cpu')) and autocast are mixed precision: out of scope (compat/scope.py)."""
import warnings as _warnings

from engine.compat.scope import sentence as _sentence
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.errors import UnsupportedError as _UnsupportedError


class GradScaler:
    def __init__(self, device: str = "cuda", init_scale: float = 65536.0, growth_factor: float = 2.0,
                 backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True):
        self._device = device
        if enabled and device == "cuda":
            _warnings.warn("torch.cuda.amp.GradScaler is enabled, but CUDA is not available.  Disabling.",
                           UserWarning, stacklevel=2)
        elif enabled:
            raise _UnsupportedError(f"torch.amp.GradScaler({device!r}) with enabled=True is not supported by "
                                    f"Dagscope. {_sentence('torch.amp')}")
        self._enabled = False

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs):
        return outputs            # disabled: the loss as it is

    def unscale_(self, optimizer) -> None:
        return None

    def step(self, optimizer, *args, **kwargs):
        return optimizer.step(*args, **kwargs)

    def update(self, new_scale=None) -> None:
        return None

    def get_scale(self) -> float:
        return 1.0

    def state_dict(self) -> dict:
        return {}

    def load_state_dict(self, state_dict: dict) -> None:
        return None


__getattr__ = _unsupported_getattr("torch.amp", globals())
