# Why in-place ops can break backward: exp and sigmoid save their output for the gradient, so changing that
# output in place makes backward fail (PyTorch's message names the op whose output changed); the fixes.
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = torch.exp(x)
y.add_(1)
print(y._version, y.grad_fn)
try:
    y.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". Hint")[0])
s = torch.sigmoid(x)
s.mul_(2)
try:
    s.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(". Hint")[0])
y = torch.exp(x)
y = y + 1
y.sum().backward()
print(x.grad)
x.grad = None
z = x * 3
z.add_(1)
z.sum().backward()
print(x.grad, z.grad_fn)
