"""`import torch` inside a run: Dagscope's PyTorch-compatible surface. Names outside it fail loudly."""
from __future__ import annotations

from engine.autograd import enable_grad, is_grad_enabled, no_grad, set_grad_enabled
from engine.compat.torch_dtypes import (bool, double, dtype, float, float16, float32, float64, half, int,
                                        int8, int16, int32, int64, long, short, uint8)
from engine.compat.torch_size import Size
from engine.creation import (arange, from_numpy, full, manual_seed, ones, rand, randint, randn, tensor,
                             zeros)
from engine.errors import UnsupportedError
from engine.tensor import Tensor

from engine.compat.torch import autograd  # noqa: E402  (submodule, as torch.autograd)

__version__ = "2.13.0+dagscope"


def __getattr__(name: str):
    if name.startswith("__"):
        raise AttributeError(name)
    public = sorted(n for n in globals() if not n.startswith("_"))
    raise UnsupportedError(f"torch.{name} is not supported by Dagscope. Supported names in torch: "
                           f"{', '.join(public)}.")
