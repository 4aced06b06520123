"""`torch.autograd.function`: Function, FunctionCtx and once_differentiable."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.autograd_function import Function, FunctionCtx, once_differentiable  # noqa: F401

__getattr__ = _unsupported_getattr("torch.autograd.function", globals())
