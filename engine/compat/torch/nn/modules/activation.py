"""`torch.nn.modules.activation`: the classes PyTorch defines there, under the path a program (or
torch.serialization.safe_globals) may name them by."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.nn.modules._classes import classes as _classes

globals().update(_classes("ReLU ReLU6 LeakyReLU ELU SELU CELU LogSigmoid GELU SiLU Mish Hardtanh Hardswish Hardsigmoid Softplus Softsign Tanhshrink Tanh Sigmoid Softmax Softmin LogSoftmax MultiheadAttention"))

__getattr__ = _unsupported_getattr("torch.nn.modules.activation", globals())
