# A non-leaf's retained gradient accumulates over backward calls, as a leaf's does.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
z = x * 2
z.retain_grad()
(z * z).sum().backward(retain_graph=True)
print(z.grad)
(z * z).sum().backward()
print(z.grad, x.grad)
