# Second-order gradients: a gradient penalty through a small network, Hessian-vector products, hooks on modules.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.6, 0.8, p.numel()).reshape(p.shape) * (i + 1) / 2)
x = torch.tensor([[0.5, -1.0], [1.5, 2.0]], requires_grad=True)
out = net(x)
(gx,) = torch.autograd.grad(out.sum(), x, create_graph=True)
print(gx)
penalty = ((gx.norm(dim=1) - 1) ** 2).mean()
penalty.backward()
print(penalty, net[0].weight.grad)
print(net[2].bias.grad)
w = torch.tensor([1.0, 2.0], requires_grad=True)
f = (w ** 3).sum() + w[0] * w[1]
(g,) = torch.autograd.grad(f, w, create_graph=True)
v = torch.tensor([1.0, 0.0])
(hv,) = torch.autograd.grad(g @ v, w)
print(g, hv)
z = torch.tensor(3.0, requires_grad=True)
y = z ** 4
y.backward(create_graph=True)
print(z.grad.item(), z.grad.requires_grad)
g1 = z.grad.clone()
z.grad = None
g1.backward()
print(z.grad)
grads = []
h = net[0].register_full_backward_hook(lambda m, gin, gout: grads.append((gin[0].shape, gout[0].shape)))
net.zero_grad()
net(torch.ones(4, 2, requires_grad=True)).sum().backward()
print(grads)
h.remove()
k = torch.ones(2)
k.requires_grad = True
print(k.requires_grad, k.is_leaf, (k * 2).is_leaf)
