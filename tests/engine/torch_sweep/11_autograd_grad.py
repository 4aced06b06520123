# torch.autograd.grad: first and second derivatives, create_graph, allow_unused.
import torch

x = torch.tensor([0.5, 1.0, 2.0], requires_grad=True)
y = (x ** 3).sum()
(g,) = torch.autograd.grad(y, x, create_graph=True)
print(g)
(g2,) = torch.autograd.grad(g.sum(), x)
print(g2)

u = torch.tensor(2.0, requires_grad=True)
v = torch.tensor(3.0, requires_grad=True)
f = u * v + u.sin()
du, dv = torch.autograd.grad(f, [u, v])
print(du, dv)
w = torch.tensor(1.0, requires_grad=True)
res = torch.autograd.grad(u * 2, [u, w], allow_unused=True)
print(res)
out = torch.stack([u * u, u * v])
gs = torch.autograd.grad(out, (u, v), grad_outputs=torch.tensor([1.0, 2.0]))
print(gs)
print(u.grad, v.grad)
