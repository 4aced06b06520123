# In-place ops on views and slices under no_grad (copy_ with broadcasting, fill_ with a 0-d tensor, zero_ on rows).
import torch
import torch.nn as nn

w = nn.Parameter(torch.arange(12.0).reshape(3, 4))
with torch.no_grad():
    w[0].zero_()
    w[1].fill_(torch.tensor(2.5))
    w[2, 1:].copy_(torch.tensor([9.0, 8.0, 7.0]))
    w[:, 0].add_(10)
    w[:, -1:].mul_(-1)
print(w)
t = torch.ones(2, 3)
t.copy_(torch.tensor([1.0, 2.0, 3.0]))
print(t)
t[:, 1].copy_(torch.tensor([5, 6]))
print(t, t.dtype)
i = torch.tensor([1, 2, 3])
i.add_(2)
i.mul_(3)
print(i, i.dtype)
try:
    i.mul_(1.5)
except RuntimeError as e:
    print("RuntimeError:", e)
f = torch.zeros(3)
f.add_(torch.tensor([1, 2, 3]))
f.sub_(0.5).div_(2)
print(f, f.dtype)
with torch.no_grad():
    w.sub_(w.sum(), alpha=0.01)
print(w.requires_grad, w.grad_fn, w.sum())
u = torch.zeros(4)
u[1:3] = 5
u.clamp_(min=1)
print(u, u.add(1), u)
