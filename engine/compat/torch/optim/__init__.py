"""`torch.optim`: SGD, Adam, AdamW, RMSprop, Adagrad, the Optimizer base, and lr_scheduler."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.optim import lr_scheduler  # noqa: F401
from engine.optim import SGD, Adagrad, Adam, AdamW, Optimizer, RMSprop  # noqa: F401

__getattr__ = _unsupported_getattr("torch.optim", globals())
