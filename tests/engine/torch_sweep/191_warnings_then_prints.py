# Warnings go to stderr, as in Python: what is printed after them is the program's stdout alone.
import sys
import warnings

import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.arange(24.0).reshape(2, 3, 4)
for step in range(2):
    y = x.T                                   # UserWarning: x.T on a 3-D tensor (shown once)
print(y.shape, y[0, 0])

p = F.softmax(torch.tensor([[1.0, 2.0], [3.0, 5.0]]))   # UserWarning: implicit dim
print(p)

copy = torch.tensor(x[0, 0])                  # UserWarning in PyTorch: copy-constructing a tensor
print(copy)

print(nn.Softmax()(torch.tensor([0.0, 1.0])))  # the module's implicit-dim warning
loss = F.mse_loss(torch.tensor([1.0, 2.0, 3.0]), torch.tensor([2.0]))   # broadcast target warning
print(loss)

warnings.warn("a warning of the program's own")
print("progress: half way", file=sys.stderr)
print("done")
