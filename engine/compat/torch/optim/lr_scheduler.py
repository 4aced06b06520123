"""`torch.optim.lr_scheduler`: closed-form schedulers and ReduceLROnPlateau."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.optim.lr_scheduler import (CosineAnnealingLR, ExponentialLR, LambdaLR, LRScheduler,  # noqa: F401
                                       MultiStepLR, ReduceLROnPlateau, StepLR)

__getattr__ = _unsupported_getattr("torch.optim.lr_scheduler", globals())
