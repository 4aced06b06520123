"""`torch.nn.functional` (usually imported as F): engine.functional's PyTorch-named functions, plus
adaptive_avg_pool1d/2d and scaled_dot_product_attention (which live beside their modules in engine.nn)."""
from engine import functional as _functional
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.nn.pooling import adaptive_avg_pool1d, adaptive_avg_pool2d  # noqa: F401
from engine.nn.transformer import scaled_dot_product_attention  # noqa: F401

globals().update({name: getattr(_functional, name) for name in _functional.__all__})

__getattr__ = _unsupported_getattr("torch.nn.functional", globals())
