"""Engine classes print under PyTorch's names: type(model) shows <class 'torch.nn.modules.linear.Linear'>,
as in PyTorch, not the engine module that defines the class. Classes written in the pasted code keep
Python's own repr (<class '__main__.Net'>).

The bases real code subclasses (Module, Optimizer, Dataset, autograd.Function, ...) take
TorchABCClassRepr, which is also an ABCMeta: `class Base(nn.Module, abc.ABC)` is common, and a metaclass
that is not one makes it a metaclass conflict. Tensor keeps the plain one (isinstance(x, Tensor) is on
every op's path, and ABCMeta's check is slower). tests/compat/torch_facade/test_class_names.py compares
every class the facade exports with PyTorch's repr of it.
"""
from __future__ import annotations

from abc import ABCMeta

_NN = {"module": ["Module"], "linear": ["Linear", "Identity", "LazyLinear"],
       "conv": ["Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d"], "sparse": ["Embedding"],
       "flatten": ["Flatten", "Unflatten"], "dropout": ["Dropout"],
       "activation": ["ReLU", "LeakyReLU", "GELU", "SiLU", "Softplus", "Tanh", "Sigmoid", "Softmax", "Softmin",
                      "LogSoftmax", "MultiheadAttention", "ELU", "Hardsigmoid", "Hardswish", "Hardtanh", "Mish",
                      "ReLU6", "Softsign", "Tanhshrink"],
       "pooling": ["MaxPool1d", "MaxPool2d", "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d"],
       "normalization": ["LayerNorm", "GroupNorm"],
       "batchnorm": ["BatchNorm1d", "BatchNorm2d"], "rnn": ["RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell"],
       "transformer": ["TransformerEncoderLayer", "TransformerEncoder", "Transformer", "TransformerDecoder",
                       "TransformerDecoderLayer"],
       "padding": [f"{kind}Pad{n}d" for kind in ("Circular", "Constant", "Reflection", "Replication", "Zero")
                   for n in (1, 2)],
       "upsampling": ["Upsample", "UpsamplingBilinear2d", "UpsamplingNearest2d"],
       "container": ["Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict"],
       "loss": ["MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
                "BCEWithLogitsLoss"]}
_OPTIM = {"sgd": ["SGD"], "adam": ["Adam"], "adamw": ["AdamW"], "rmsprop": ["RMSprop"], "adagrad": ["Adagrad"],
          "adadelta": ["Adadelta"], "adamax": ["Adamax"], "nadam": ["NAdam"], "radam": ["RAdam"], "asgd": ["ASGD"],
          "rprop": ["Rprop"], "lbfgs": ["LBFGS"], "optimizer": ["Optimizer"],
          "lr_scheduler": ["LRScheduler", "_LRScheduler", "StepLR", "MultiStepLR", "ExponentialLR", "LambdaLR",
                           "CosineAnnealingLR", "ReduceLROnPlateau", "LinearLR", "ConstantLR", "PolynomialLR",
                           "MultiplicativeLR", "OneCycleLR"]}
_DATA = {"dataset": ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "StackDataset",
                     "Subset"],
         "sampler": ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler",
                     "BatchSampler"],
         "dataloader": ["DataLoader"]}

TORCH_MODULES = {name: f"torch.nn.modules.{module}" for module, names in _NN.items() for name in names}
TORCH_MODULES.update({name: f"torch.optim.{module}" for module, names in _OPTIM.items() for name in names})
TORCH_MODULES.update({name: f"torch.utils.data.{module}" for module, names in _DATA.items() for name in names})
TORCH_MODULES.update({"dtype": "torch", "Size": "torch", "Tensor": "torch", "device": "torch", "finfo": "torch",
                      "iinfo": "torch", "Generator": "torch._C",
                      "Parameter": "torch.nn.parameter", "Buffer": "torch.nn.parameter",
                      "UninitializedParameter": "torch.nn.parameter",
                      "Function": "torch.autograd.function", "no_grad": "torch.autograd.grad_mode",
                      "enable_grad": "torch.autograd.grad_mode", "set_grad_enabled": "torch.autograd.grad_mode",
                      "ScriptModule": "torch.jit._script", "TracerWarning": "torch.jit._trace",
                      "TracedModule": "torch.jit._trace", "TopLevelTracedModule": "torch.jit._trace",
                      "ScriptFunction": "torch.jit.torch.jit",      # (PyTorch's own repr of its pybind class)
                      "SummaryWriter": "torch.utils.tensorboard.writer"})


class TorchClassRepr(type):
    """Metaclass of the engine's PyTorch-facing base classes (Tensor, Module, Optimizer, LRScheduler, dtype,
    Size)."""

    def __repr__(cls) -> str:
        module = TORCH_MODULES.get(cls.__name__) if cls.__module__.startswith("engine.") else None
        return f"<class '{module}.{cls.__qualname__}'>" if module else super().__repr__()


class TorchABCClassRepr(TorchClassRepr, ABCMeta):
    """TorchClassRepr for the bases pasted code subclasses, which may also list abc.ABC among its bases."""
