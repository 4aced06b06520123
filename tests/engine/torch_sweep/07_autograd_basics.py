# Autograd tutorial basics: requires_grad, grad_fn, backward of a mean.
import torch

x = torch.ones(2, 2, requires_grad=True)
print(x)
y = x + 2
print(y)
print(y.grad_fn)
z = y * y * 3
out = z.mean()
print(z, out)
out.backward()
print(x.grad)

a = torch.randn(2, 2).abs() + 1
a = ((a * 3) / (a - 1 + 1)).round()
print(a.requires_grad)
a.requires_grad_(True)
print(a.requires_grad)
b = (a * a).sum()
print(b.grad_fn)
print(x.grad_fn, x.is_leaf, y.is_leaf)
print(y.requires_grad, x.grad.requires_grad)
with torch.no_grad():
    print((x ** 2).requires_grad)
print(x.detach().requires_grad)
print(x.detach())
print(torch.is_grad_enabled())
