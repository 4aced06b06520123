# Gradients accumulate until cleared; zero_grad sets them to None by default or to zeros with set_to_none=False.
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[1.0, -1.0]]))
    model.bias.fill_(0.5)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
opt = torch.optim.SGD(model.parameters(), lr=0.1)
print(model.weight.grad)
for _ in range(3):
    model(x).sum().backward()
    print(model.weight.grad, model.bias.grad)
opt.zero_grad(set_to_none=False)
print(model.weight.grad, model.bias.grad)
model(x).mean().backward()
print(model.weight.grad)
opt.zero_grad()
print(model.weight.grad, model.bias.grad)
model(x).mean().backward()
model.zero_grad(set_to_none=False)
print(model.weight.grad)
model.zero_grad()
print(model.bias.grad)
w = torch.tensor([2.0, 3.0], requires_grad=True)
(w * w).sum().backward()
(w * 3).sum().backward()
print(w.grad)
w.grad.zero_()
print(w.grad)
w.grad = None
(w ** 3).sum().backward()
print(w.grad)
g = w.grad
(w * 1).sum().backward()
print(g is w.grad, g)
