"""`torch.nn.utils`: gradient clipping, parameter/vector conversion, and `rnn.pad_sequence`."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.utils import rnn  # noqa: F401  (loaded now: a run may not import new modules)
from engine.nn.utils import (clip_grad_norm_, clip_grad_value_, parameters_to_vector,  # noqa: F401
                             vector_to_parameters)

__getattr__ = _unsupported_getattr("torch.nn.utils", globals())
