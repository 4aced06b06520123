# In-place ops: under no_grad on parameters, on plain tensors, and the leaf error outside no_grad.
import torch

w = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
with torch.no_grad():
    w.add_(1.0)
    w.mul_(2)
    w.sub_(torch.tensor([0.5, 0.5, 0.5]))
    w.div_(2)
print(w)
try:
    w.add_(1)
except RuntimeError as e:
    print("RuntimeError:", e)
with torch.no_grad():
    w.copy_(torch.tensor([5.0, 6.0, 7.0]))
    w.clamp_(max=6.0)
print(w, w.requires_grad, w.is_leaf)
t = torch.zeros(2, 3)
t.fill_(2.5)
t[0].zero_()
t.add_(torch.tensor([1.0, 2.0, 3.0]), alpha=2)
t.mul_(torch.tensor([[1.0], [-1.0]]))
print(t)
u = torch.arange(6.0)
v = u.view(2, 3)
v[1, 1] = 100
print(u)
u.addcmul_(u, torch.ones(6), value=0.5)
print(u)
x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
y.add_(1)
print(y, y.grad_fn)
y.sum().backward()
print(x.grad)
w.data.mul_(0)
print(w)
