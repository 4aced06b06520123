"""engine.nn: Module, Parameter, layers, activations, pooling, normalization,
recurrent and attention layers, containers and losses."""
from engine.nn import init, utils  # noqa: F401
from engine.nn.activation import (CELU, ELU, GELU, SELU, LogSigmoid, Hardsigmoid, Hardswish, Hardtanh, LeakyReLU, LogSoftmax, Mish, ReLU,
                                  ReLU6, Sigmoid, SiLU, Softmax, Softmin, Softplus, Softsign, Tanh, Tanhshrink)
from engine.nn.container import ModuleDict, ModuleList, Sequential
from engine.nn.layers import (Conv1d, Conv2d, ConvTranspose1d, ConvTranspose2d, Dropout, Embedding, Flatten, Identity,
                              LazyLinear, Linear, Unflatten)
from engine.nn.loss import (BCELoss, BCEWithLogitsLoss, CrossEntropyLoss, HuberLoss, L1Loss, MSELoss, NLLLoss,
                            SmoothL1Loss)
from engine.nn.module import Module
from engine.nn.normalization import BatchNorm1d, BatchNorm2d, GroupNorm, LayerNorm
from engine.nn.parameter import Buffer, Parameter, UninitializedParameter
from engine.nn.pooling import AdaptiveAvgPool1d, AdaptiveAvgPool2d, AvgPool1d, AvgPool2d, MaxPool1d, MaxPool2d
from engine.nn.resample import (CircularPad1d, CircularPad2d, ConstantPad1d, ConstantPad2d, ReflectionPad1d,
                                 ReflectionPad2d, ReplicationPad1d, ReplicationPad2d, Upsample, UpsamplingBilinear2d,
                                 UpsamplingNearest2d, ZeroPad1d, ZeroPad2d)
from engine.nn.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNCell
from engine.nn.transformer import (MultiheadAttention, Transformer, TransformerDecoder, TransformerDecoderLayer,
                                   TransformerEncoder, TransformerEncoderLayer)

__all__ = [
    "Module", "Parameter", "Buffer", "UninitializedParameter",
    "Linear", "LazyLinear", "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "Embedding", "Flatten", "Unflatten", "Identity", "Dropout",
    "ReLU", "ReLU6", "LeakyReLU", "ELU", "SELU", "CELU", "LogSigmoid", "GELU", "SiLU", "Mish", "Hardtanh", "Hardswish", "Hardsigmoid", "Softplus", "Tanh", "Sigmoid", "Softmax", "Softmin", "LogSoftmax",
    "Softsign", "Tanhshrink",
    "MaxPool2d", "AvgPool2d", "AdaptiveAvgPool2d", "MaxPool1d", "AvgPool1d", "AdaptiveAvgPool1d", "LayerNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d",
    "ZeroPad1d", "ZeroPad2d", "ConstantPad1d", "ConstantPad2d", "ReflectionPad1d", "ReflectionPad2d",
    "ReplicationPad1d", "ReplicationPad2d", "CircularPad1d", "CircularPad2d", "Upsample", "UpsamplingNearest2d",
    "UpsamplingBilinear2d",
    "RNN", "LSTM", "GRU", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder", "TransformerDecoderLayer",
    "TransformerDecoder", "Transformer",
    "Sequential", "ModuleList", "ModuleDict",
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss", "BCEWithLogitsLoss",
    "init", "utils",
]
