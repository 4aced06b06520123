# type(x) of a tensor and of a Parameter print PyTorch's class paths.
import torch
import torch.nn as nn

x = torch.ones(2)
print(type(x), type(nn.Parameter(x)), x.__class__)
