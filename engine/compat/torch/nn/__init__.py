"""`torch.nn`: engine.nn's modules, Parameter, init and utils under PyTorch's names."""
from engine import nn as _nn
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn import functional, init, modules, utils  # noqa: F401

globals().update({name: getattr(_nn, name) for name in _nn.__all__ if name not in ("init", "utils")})
from engine.nn.container import ParameterDict, ParameterList  # noqa: E402,F401

__getattr__ = _unsupported_getattr("torch.nn", globals())
