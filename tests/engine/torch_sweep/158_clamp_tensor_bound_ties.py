# clamp with tensor bounds: where x equals the bound the gradient goes to x (PyTorch), not half to each.
import torch

x = torch.tensor([0.0, 1.0, 2.0], requires_grad=True)
lo = torch.tensor([1.0, 1.0, 1.0], requires_grad=True)
hi = torch.tensor([3.0, 3.0, 2.0], requires_grad=True)
x.clamp(min=lo, max=hi).sum().backward()
print(x.grad, lo.grad, hi.grad)
