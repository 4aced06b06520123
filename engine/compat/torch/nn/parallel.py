"""`torch.nn.parallel`: DistributedDataParallel is importable (programs import it and wrap the model only
in a distributed run); wrapping fails as PyTorch's does without a process group, which a run never has
(torch.distributed). The rest is out of scope (compat/scope.py)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.distributed import _NO_GROUP
from engine.nn.module import Module as _Module


class DistributedDataParallel(_Module):
    def __init__(self, module, *args, **kwargs):
        raise ValueError(_NO_GROUP)


__getattr__ = _unsupported_getattr("torch.nn.parallel", globals())
