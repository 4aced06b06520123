# Functions called through the torch namespace rather than as methods or from torch.nn.functional.
import torch

x = torch.tensor([-1.5, 0.5, 2.0, -3.0])
print(torch.remainder(x, 2), torch.floor_divide(torch.tensor([7, -7]), 2), torch.clamp_min(x, 0), torch.clamp_max(x, 1))
y = x.clone()
torch.relu_(y)
print(y, torch.sigmoid_(x.clone()), torch.tanh_(x.clone()), torch.neg_(x.clone()), torch.exp_(x.clone()))
print(torch.sqrt_(torch.tensor([4.0, 9.0])), torch.clamp_(x.clone(), -1, 1), torch.zero_(x.clone()), torch.fill_(x.clone(), 2.5))
w = torch.ones(1, 1, 2, 2, requires_grad=True)
out = torch.conv2d(torch.arange(9.0).reshape(1, 1, 3, 3), w, None, 1, 0)
print(out, torch.detach(out).requires_grad)
print(torch.abs(x), torch.square(x), torch.exp(torch.tensor([0.0, 1.0])), torch.flatten(torch.ones(2, 2)), torch.sum(x, 0))
