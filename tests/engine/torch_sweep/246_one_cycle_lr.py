# OneCycleLR in short training loops: the learning rate and momentum (SGD) or beta1 (Adam) each step,
# cosine and linear annealing, three phases, and stepping past the end.
import torch
import torch.nn as nn

torch.manual_seed(0)
X = torch.randn(16, 3)
Y = X @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.3


def train(make_optimizer, steps, **schedule):
    torch.manual_seed(1)
    model = nn.Linear(3, 1)
    optimizer = make_optimizer(model.parameters())
    scheduler = torch.optim.lr_scheduler.OneCycleLR(optimizer, total_steps=steps, **schedule)
    for step in range(steps):
        loss = ((model(X) - Y) ** 2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        group = optimizer.param_groups[0]
        momentum = group["betas"][0] if "betas" in group else group["momentum"]
        print(f"step {step}: loss {loss.item():.5f} lr {scheduler.get_last_lr()[0]:.6f} momentum {momentum:.4f}")
        scheduler.step()
    return scheduler, optimizer


train(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 10, max_lr=0.2)
train(lambda p: torch.optim.SGD(p, lr=0.1, momentum=0.9), 8, max_lr=0.1, anneal_strategy="linear", pct_start=0.25)
scheduler, optimizer = train(lambda p: torch.optim.Adam(p, lr=0.01), 9, max_lr=0.05, three_phase=True,
                             div_factor=10.0, final_div_factor=100.0)
print([round(lr, 8) for lr in scheduler.get_last_lr()], optimizer.param_groups[0]["betas"])
try:
    scheduler.step()
except ValueError as e:
    print("ValueError", e)

model = nn.Linear(2, 1)
sgd = torch.optim.SGD(model.parameters(), lr=0.5)
s = torch.optim.lr_scheduler.OneCycleLR(sgd, max_lr=1.0, epochs=2, steps_per_epoch=3, cycle_momentum=False)
lrs = []
for _ in range(6):
    lrs.append(round(s.get_last_lr()[0], 6))
    sgd.step()
    s.step()
print(lrs, s.total_steps, sgd.param_groups[0]["initial_lr"], sgd.param_groups[0]["min_lr"])
for kwargs in ({"max_lr": 1.0}, {"max_lr": 1.0, "total_steps": 5, "pct_start": 1.5},
               {"max_lr": 1.0, "total_steps": 5, "anneal_strategy": "exp"}):
    try:
        torch.optim.lr_scheduler.OneCycleLR(torch.optim.SGD(model.parameters(), lr=0.1), **kwargs)
    except ValueError as e:
        print("ValueError", e)
