"""`torch.optim`: every optimizer of engine.optim, the Optimizer base, and lr_scheduler."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.optim import lr_scheduler  # noqa: F401
from engine.optim import (ASGD, LBFGS, SGD, Adadelta, Adagrad, Adam, Adamax, AdamW, NAdam, Optimizer,  # noqa: F401
                          RAdam, RMSprop, Rprop)

__getattr__ = _unsupported_getattr("torch.optim", globals())
