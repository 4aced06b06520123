# detach shares memory, detach_ cuts a graph, .data; in-place updates on parameters under no_grad.
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * 2
d = y.detach()
d[0] = 100.0
print(y, d, d.requires_grad, d.grad_fn)
z = x.detach()
z.add_(1)
print(x)
y = x * 2
y.detach_()
print(y.requires_grad, y.grad_fn, y.is_leaf)
lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.zero_()
    lin.weight.add_(torch.tensor([[1.0, 2.0], [3.0, 4.0]]))
    lin.weight.mul_(0.5)
    lin.bias.fill_(-1.0)
    lin.bias.copy_(lin.bias * 2)
    lin.weight[0, 1] = 7.0
    lin.weight.add_(torch.ones(2, 2), alpha=-0.5)
print(lin.weight, lin.bias)
print(lin.weight.requires_grad, lin.weight.is_leaf, lin.weight.grad_fn)
out = lin(torch.ones(1, 2))
out.sum().backward()
print(out, lin.weight.grad)
lin.weight.data -= 0.1 * lin.weight.grad
print(lin.weight)
p = torch.zeros(3, requires_grad=True)
try:
    p.fill_(1.0)
except RuntimeError as e:
    print("RuntimeError:", e)
q = p.clone()
q[1] = 5.0
q.sum().backward()
print(q, p.grad)
