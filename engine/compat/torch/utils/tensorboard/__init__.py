"""`torch.utils.tensorboard`: SummaryWriter (scalars, histograms, the graph) kept in the run record
for the charts instead of event files on disk (writer.py)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.utils.tensorboard import writer  # noqa: F401
from engine.compat.torch.utils.tensorboard.writer import SummaryWriter  # noqa: F401

__getattr__ = _unsupported_getattr("torch.utils.tensorboard", globals())
