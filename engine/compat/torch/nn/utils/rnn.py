"""`torch.nn.utils.rnn`: pad_sequence (packed sequences are not supported: a clear error names them)."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.nn.utils import pad_sequence  # noqa: F401

__getattr__ = _unsupported_getattr("torch.nn.utils.rnn", globals())
