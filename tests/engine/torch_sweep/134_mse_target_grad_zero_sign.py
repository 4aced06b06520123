# mse_loss's gradient for a target that requires grad, where input and target are equal: 0, not -0.
import torch
import torch.nn.functional as F

p = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
t = torch.tensor([0.0, 2.0, 5.0], requires_grad=True)
F.mse_loss(p, t).backward()
print(p.grad, t.grad)
