# GELU versus ReLU over a wide range: GELU(x) = x * Phi(x) is smooth, slightly negative left of zero and
# exactly 0 far left; its gradient Phi(x) + x * phi(x) printed beside ReLU's step.
import torch
import torch.nn as nn

x = torch.linspace(-10, 10, 11, requires_grad=True)
gelu = nn.GELU()
y = gelu(x)
print(y)
y.sum().backward()
print(x.grad)
x.grad = None
torch.relu(x).sum().backward()
print(x.grad)
z = torch.tensor([-8.0, -6.0, -4.0, -2.0, -0.5], requires_grad=True)
g = nn.functional.gelu(z)
print(g, g.min())
g.sum().backward()
print(z.grad)
