# Higher derivatives with autograd.grad(create_graph=True): elementary functions, products, a third derivative
# (values only: the grad_fn names of derivative graphs are program 127's).
import torch

x = torch.tensor([0.3, 1.0, -2.0], requires_grad=True)
for name, f in [("sin", torch.sin), ("tanh", torch.tanh), ("exp", torch.exp), ("sigmoid", torch.sigmoid),
                ("log1", lambda t: torch.log(t * t + 1)), ("sqrt", lambda t: torch.sqrt(t * t + 1)),
                ("pow", lambda t: t.pow(4) / 4), ("relu2", lambda t: torch.relu(t) ** 2)]:
    y = f(x)
    (d1,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
    print(name, d1.detach(), d2.detach())
t = torch.tensor(1.5, requires_grad=True)
y = t ** 5
(g1,) = torch.autograd.grad(y, t, create_graph=True)
(g2,) = torch.autograd.grad(g1, t, create_graph=True)
(g3,) = torch.autograd.grad(g2, t)
print(g1, g2, g3)
a = torch.tensor(2.0, requires_grad=True)
b = torch.tensor(-1.0, requires_grad=True)
f = a * a * b + torch.exp(a * b)
da, db = torch.autograd.grad(f, (a, b), create_graph=True)
print(da, db)
print(torch.autograd.grad(da, (a, b), retain_graph=True), torch.autograd.grad(db, (a, b)))
w = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
v = torch.tensor([1.0, -1.0])
loss = (w @ v).pow(2).sum()
(gw,) = torch.autograd.grad(loss, w, create_graph=True)
gw.norm().backward()
print(gw.detach(), w.grad)
