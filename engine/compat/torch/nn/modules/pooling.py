"""`torch.nn.modules.pooling`: the classes PyTorch defines there, under the path a program (or
torch.serialization.safe_globals) may name them by."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.modules._classes import classes as _classes

globals().update(_classes("MaxPool1d MaxPool2d AvgPool1d AvgPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d"))

__getattr__ = _unsupported_getattr("torch.nn.modules.pooling", globals())
