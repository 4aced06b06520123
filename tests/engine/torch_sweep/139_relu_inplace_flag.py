# nn.ReLU(inplace=True), F.relu(inplace=True) and nn.LeakyReLU(inplace=True) overwrite their input and return it.
import torch
import torch.nn as nn
import torch.nn.functional as F

t = torch.tensor([-1.0, 2.0])
r = nn.ReLU(inplace=True)(t)
print(t, r is t)
t = torch.tensor([-1.0, 2.0])
r = F.relu(t, inplace=True)
print(t, r is t)
t = torch.tensor([-1.0, 2.0])
r = nn.LeakyReLU(0.1, inplace=True)(t)
print(t, r is t)
x = torch.tensor([-1.0, 2.0], requires_grad=True)
h = x * 2
out = nn.ReLU(inplace=True)(h)
print(out, h)
out.sum().backward()
print(x.grad)
