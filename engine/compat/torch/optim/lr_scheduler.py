"""`torch.optim.lr_scheduler`: PyTorch's chainable schedulers, OneCycleLR and ReduceLROnPlateau."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.optim.lr_scheduler import (ConstantLR, CosineAnnealingLR, ExponentialLR, LambdaLR,  # noqa: F401
                                       LinearLR, LRScheduler, MultiplicativeLR, MultiStepLR, OneCycleLR,
                                       PolynomialLR, ReduceLROnPlateau, StepLR, _LRScheduler)

__getattr__ = _unsupported_getattr("torch.optim.lr_scheduler", globals())
