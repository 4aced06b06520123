# The same fit with autograd: requires_grad tensors, backward(), updates under no_grad.
import math
import torch

x = torch.linspace(-math.pi, math.pi, 2000)
y = torch.sin(x)
a = torch.tensor(0.1, requires_grad=True)
b = torch.tensor(-0.2, requires_grad=True)
c = torch.tensor(0.05, requires_grad=True)
d = torch.tensor(0.3, requires_grad=True)

learning_rate = 1e-6
for t in range(300):
    y_pred = a + b * x + c * x ** 2 + d * x ** 3
    loss = (y_pred - y).pow(2).sum()
    if t % 100 == 99:
        print(t, loss.item())
    loss.backward()
    with torch.no_grad():
        a -= learning_rate * a.grad
        b -= learning_rate * b.grad
        c -= learning_rate * c.grad
        d -= learning_rate * d.grad
        a.grad = None
        b.grad = None
        c.grad = None
        d.grad = None

print(loss)
print(a, b.grad, c.requires_grad, d.is_leaf)
print(f'Result: y = {a.item():.4f} + {b.item():.4f} x + {c.item():.4f} x^2 + {d.item():.4f} x^3')
