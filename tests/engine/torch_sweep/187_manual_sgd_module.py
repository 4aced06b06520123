# Manual gradient descent on a seeded nn.Module: updates under no_grad through parameters(), .data and
# param.grad.zero_(), the loss curve, and the same run with torch.optim.SGD for comparison.
import torch
import torch.nn as nn

torch.manual_seed(7)
X = torch.rand(32, 2) * 4 - 2
y = (X[:, :1] * 1.5 - X[:, 1:] * 0.5 + 0.3) + 0.05 * torch.randn(32, 1)


def make():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(2, 8), nn.Tanh(), nn.Linear(8, 1))


model = make()
lr = 0.1
for step in range(40):
    loss = ((model(X) - y) ** 2).mean()
    model.zero_grad()
    loss.backward()
    with torch.no_grad():
        for p in model.parameters():
            p -= lr * p.grad
    if step % 10 == 0:
        print(step, round(loss.item(), 5))
manual = [p.detach().clone() for p in model.parameters()]
model = make()
opt = torch.optim.SGD(model.parameters(), lr=lr)
for step in range(40):
    opt.zero_grad()
    ((model(X) - y) ** 2).mean().backward()
    opt.step()
print(all(torch.allclose(a, b, atol=1e-6) for a, b in zip(manual, model.parameters())))
model[0].weight.data.mul_(0.5)
model[2].bias.data = torch.tensor([1.0])
print(model[0].weight[0], model[2].bias, model[2].bias.requires_grad, model[2].bias.is_leaf)
