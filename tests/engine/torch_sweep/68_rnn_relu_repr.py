# An RNN's repr leaves its nonlinearity out (PyTorch's RNNBase.extra_repr does not show it).
import torch.nn as nn

print(nn.RNN(3, 5, nonlinearity='relu'), nn.RNN(3, 5, num_layers=2, bias=False))
