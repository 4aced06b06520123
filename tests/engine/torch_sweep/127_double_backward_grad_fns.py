# The graph autograd.grad(create_graph=True) builds: grad_fn names of first and second derivatives, and
# whether a second derivative still requires grad.
import torch

x = torch.tensor([0.3, 1.0, -2.0], requires_grad=True)
for name, f in [("sin", torch.sin), ("tanh", torch.tanh), ("sigmoid", torch.sigmoid),
                ("relu2", lambda t: torch.relu(t) ** 2)]:
    (d1,) = torch.autograd.grad(f(x).sum(), x, create_graph=True)
    (d2,) = torch.autograd.grad(d1.sum(), x, create_graph=True)
    print(name, d1.grad_fn, d2.grad_fn, d2.requires_grad)
w = torch.tensor([[1.0, 2.0], [0.5, -1.0]], requires_grad=True)
(gw,) = torch.autograd.grad((w @ torch.tensor([1.0, -1.0])).pow(2).sum(), w, create_graph=True)
print(gw.grad_fn)
