"""`torch.utils`: only `torch.utils.data` (Dataset, TensorDataset, DataLoader, random_split)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.utils import data  # noqa: F401

__getattr__ = _unsupported_getattr("torch.utils", globals())
