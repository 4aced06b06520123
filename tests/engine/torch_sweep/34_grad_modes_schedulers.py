# Grad modes as decorators, set_grad_enabled, gradient clipping and a learning-rate schedule.
import torch
import torch.nn as nn


@torch.no_grad()
def evaluate(model, x):
    return model(x)


model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[3.0, -4.0]]))
    model.bias.fill_(1.0)
x = torch.tensor([[1.0, 2.0], [0.5, -1.0]])
print(evaluate(model, x).requires_grad, model(x).requires_grad)
with torch.set_grad_enabled(False):
    print(model(x).grad_fn)
torch.set_grad_enabled(True)
loss = (model(x) ** 2).sum()
loss.backward()
print(model.weight.grad, model.bias.grad)
total = torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
print(total, model.weight.grad, model.bias.grad)
torch.nn.utils.clip_grad_value_(model.parameters(), 0.1)
print(model.weight.grad)
opt = torch.optim.SGD(model.parameters(), lr=1.0)
sched = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
lrs = []
for epoch in range(6):
    opt.step()
    sched.step()
    lrs.append(sched.get_last_lr()[0])
print(lrs)
print(model.weight)
