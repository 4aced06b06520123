"""`torch.nn`: engine.nn's modules, Parameter, init and utils under PyTorch's names."""
from engine.compat.torch._surface import unsupported_getattr
from engine.compat.torch.nn import functional, init, utils  # noqa: F401
from engine.nn import (GELU, BatchNorm1d, BCELoss, BCEWithLogitsLoss, Buffer, Conv2d, CrossEntropyLoss,  # noqa: F401
                       Dropout, Embedding, Flatten, Identity, L1Loss, LayerNorm, Linear, LogSoftmax, Module,
                       ModuleDict, ModuleList, MSELoss, NLLLoss, Parameter, ReLU, Sequential, Sigmoid, Softmax,
                       Tanh)

__getattr__ = unsupported_getattr("torch.nn", globals())
