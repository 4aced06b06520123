"""`torch.nn.modules.container`: the classes PyTorch defines there, under the path a program (or
torch.serialization.safe_globals) may name them by."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.modules._classes import classes as _classes

globals().update(_classes("Sequential ModuleList ModuleDict ParameterList ParameterDict"))

__getattr__ = _unsupported_getattr("torch.nn.modules.container", globals())
