"""`torch.utils`: `torch.utils.data` (datasets, samplers, DataLoader, random_split) and
`torch.utils.tensorboard` (SummaryWriter, kept in the run record)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.utils import data, tensorboard  # noqa: F401

__getattr__ = _unsupported_getattr("torch.utils", globals())
