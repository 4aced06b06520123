"""torch.device, which a Tensor reports as its `device`: a fact of the core's tensors, as torch.Size
is, so it lives beside torch_size.py rather than in the facade (which re-exports it)."""
from __future__ import annotations

from engine.compat.torch_class_names import TorchClassRepr


class device(metaclass=TorchClassRepr):
    """torch.device: Dagscope computes on the CPU only, so only 'cpu' devices can be used."""

    def __init__(self, type: str = "cpu", index=None):
        text = type.type if isinstance(type, device) else str(type)
        self.type, _, idx = text.partition(":")
        self.index = int(idx) if idx else index

    def __repr__(self) -> str:
        return f"device(type='{self.type}'" + (f", index={self.index})" if self.index is not None else ")")

    def __str__(self) -> str:
        return self.type + (f":{self.index}" if self.index is not None else "")

    def __eq__(self, other) -> bool:
        return str(self) == str(other)

    def __hash__(self):
        return hash(str(self))
