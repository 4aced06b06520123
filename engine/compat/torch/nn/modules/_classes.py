"""The engine classes named by one of torch.nn.modules' files."""
from engine import nn as _nn
from engine.nn.container import ParameterDict, ParameterList
from engine.nn.rnn import RNNBase
from engine.nn.transformer import NonDynamicallyQuantizableLinear

_MORE = {"ParameterDict": ParameterDict, "ParameterList": ParameterList, "RNNBase": RNNBase,
         "NonDynamicallyQuantizableLinear": NonDynamicallyQuantizableLinear}


def classes(names: str) -> dict:
    return {n: _MORE[n] if n in _MORE else getattr(_nn, n) for n in names.split()}
