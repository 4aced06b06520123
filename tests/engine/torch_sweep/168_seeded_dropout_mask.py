# Dropout in training mode after torch.manual_seed: PyTorch keeps an element when a double uniform is below 1 - p.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
print(F.dropout(torch.ones(12), p=0.5))
print(nn.Dropout(0.25)(torch.arange(1.0, 9.0)))
print(torch.rand(2))
