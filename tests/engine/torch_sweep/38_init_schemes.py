# nn.init on parameters: constant, ones/zeros, eye, calculate_gain, and what fan-based schemes bound.
import math
import torch
import torch.nn as nn

w = torch.empty(3, 5)
nn.init.constant_(w, 0.3)
print(w[0])
nn.init.ones_(w)
print(w.sum())
nn.init.zeros_(w)
print(w.abs().max())
nn.init.eye_(w)
print(w)
print(nn.init.calculate_gain('relu'), nn.init.calculate_gain('tanh'), nn.init.calculate_gain('leaky_relu', 0.2),
      nn.init.calculate_gain('linear'), nn.init.calculate_gain('sigmoid'))
nn.init.xavier_uniform_(w)
bound = math.sqrt(6 / (3 + 5))
print(bool(w.abs().max() <= bound), w.shape)
nn.init.kaiming_uniform_(w, a=math.sqrt(5))
print(bool(w.abs().max() <= 1 / math.sqrt(5)))
nn.init.uniform_(w, -0.1, 0.1)
print(bool(w.abs().max() <= 0.1))
lin = nn.Linear(4, 3)
print(bool(lin.weight.abs().max() <= 0.5), bool(lin.bias.abs().max() <= 0.5), lin.weight.requires_grad)
