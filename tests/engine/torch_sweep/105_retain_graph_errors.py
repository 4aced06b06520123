# Backward through a freed graph, retain_graph, autograd.grad errors and misuse, word for word.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x.exp() * 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", e)
y = (x * x).sum()
torch.autograd.grad(y, x)
try:
    torch.autograd.grad(y, x)
except RuntimeError as e:
    print("RuntimeError:", e)
y = (x ** 3).sum()
print(torch.autograd.grad(y, x, retain_graph=True), torch.autograd.grad(y, x))
z = torch.tensor([3.0, 4.0], requires_grad=True)
try:
    torch.autograd.grad((x * 2).sum(), torch.tensor([1.0]))
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.autograd.grad(x * 2, x)
except RuntimeError as e:
    print("RuntimeError:", e)
h = x * 3
s = h.sum()
s.backward(retain_graph=True)
s.backward(retain_graph=True)
(h * h).sum().backward()
print(x.grad)
