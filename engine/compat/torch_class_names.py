"""Engine classes print under PyTorch's names: type(model) shows <class 'torch.nn.modules.linear.Linear'>,
as in PyTorch, not the engine module that defines the class. Classes written in the pasted code keep
Python's own repr (<class '__main__.Net'>)."""
from __future__ import annotations

_NN = {"module": ["Module"], "linear": ["Linear", "Identity"], "conv": ["Conv2d"], "sparse": ["Embedding"],
       "flatten": ["Flatten", "Unflatten"], "dropout": ["Dropout"],
       "activation": ["ReLU", "LeakyReLU", "GELU", "SiLU", "Softplus", "Tanh", "Sigmoid", "Softmax", "Softmin",
                      "LogSoftmax", "MultiheadAttention"],
       "pooling": ["MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d"], "normalization": ["LayerNorm"],
       "batchnorm": ["BatchNorm1d", "BatchNorm2d"], "rnn": ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"],
       "transformer": ["TransformerEncoderLayer", "TransformerEncoder"],
       "container": ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"],
       "loss": ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
                "BCEWithLogitsLoss"]}
_OPTIM = {"sgd": ["SGD"], "adam": ["Adam"], "adamw": ["AdamW"], "rmsprop": ["RMSprop"], "adagrad": ["Adagrad"],
          "optimizer": ["Optimizer"],
          "lr_scheduler": ["LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR", "CosineAnnealingLR",
                           "ReduceLROnPlateau", "LinearLR", "ConstantLR", "PolynomialLR", "MultiplicativeLR"]}

TORCH_MODULES = {name: f"torch.nn.modules.{module}" for module, names in _NN.items() for name in names}
TORCH_MODULES.update({name: f"torch.optim.{module}" for module, names in _OPTIM.items() for name in names})
TORCH_MODULES.update({"dtype": "torch", "Size": "torch", "Tensor": "torch", "Parameter": "torch.nn.parameter"})


class TorchClassRepr(type):
    """Metaclass of the engine's PyTorch-facing base classes (Tensor, Module, Optimizer, LRScheduler, dtype,
    Size)."""

    def __repr__(cls) -> str:
        module = TORCH_MODULES.get(cls.__name__) if cls.__module__.startswith("engine.") else None
        return f"<class '{module}.{cls.__qualname__}'>" if module else super().__repr__()
