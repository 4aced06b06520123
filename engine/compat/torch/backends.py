"""`torch.backends`: the cudnn/mps flags pasted code sets for determinism; they change nothing on
the CPU, in PyTorch as here."""
from types import SimpleNamespace

cudnn = SimpleNamespace(deterministic=False, benchmark=False, enabled=True, is_available=lambda: False)
mps = SimpleNamespace(is_available=lambda: False, is_built=lambda: False)
