"""`torch.nn.modules.padding`: the classes PyTorch defines there, under the path a program (or
torch.serialization.safe_globals) may name them by."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.modules._classes import classes as _classes

globals().update(_classes("ZeroPad1d ZeroPad2d ConstantPad1d ConstantPad2d ReflectionPad1d ReflectionPad2d ReplicationPad1d ReplicationPad2d CircularPad1d CircularPad2d"))

__getattr__ = _unsupported_getattr("torch.nn.modules.padding", globals())
