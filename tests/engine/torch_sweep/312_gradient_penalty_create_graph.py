# A WGAN-GP style gradient penalty: torch.autograd.grad with create_graph=True on interpolated inputs, the
# penalty ((||grad|| - 1)^2).mean() backpropagated into the critic's parameters.
import torch
import torch.nn as nn

torch.manual_seed(17)
critic = nn.Sequential(nn.Linear(3, 8), nn.Tanh(), nn.Linear(8, 1))
real = torch.randn(4, 3)
fake = torch.randn(4, 3)
alpha = torch.rand(4, 1)
interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
scores = critic(interp)
grads, = torch.autograd.grad(outputs=scores, inputs=interp, grad_outputs=torch.ones_like(scores),
                             create_graph=True)
print(grads.shape, grads.requires_grad, grads.grad_fn is not None)
norms = grads.norm(2, dim=1)
print(norms)
penalty = ((norms - 1) ** 2).mean()
loss = critic(fake).mean() - critic(real).mean() + 10 * penalty
print(penalty, loss)
loss.backward()
print(critic[0].weight.grad[:2])
print(critic[2].weight.grad)
print(critic[2].bias.grad)
print(interp.grad is None)

x = torch.tensor([1.0, 2.0], requires_grad=True)
f = (x ** 3).sum()
(g,) = torch.autograd.grad(f, x, create_graph=True)
print(g)
(h,) = torch.autograd.grad(g.sum(), x)
print(h)
u = torch.tensor(0.5, requires_grad=True)
v = torch.sin(u) * u
du, = torch.autograd.grad(v, u, create_graph=True)
d2u, = torch.autograd.grad(du, u, retain_graph=True)
print(du, d2u)
out = torch.autograd.grad(v, [u], allow_unused=True)
print(out)
