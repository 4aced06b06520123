# Parameter groups with their own learning rates, add_param_group, optimizer state_dict round trip.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 1))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape) / (i + 1))
opt = torch.optim.SGD([{"params": model[0].parameters()}, {"params": model[2].parameters(), "lr": 0.01}],
                      lr=0.1, momentum=0.9)
x = torch.tensor([[1.0, 2.0], [-1.0, 0.5]])
for _ in range(3):
    opt.zero_grad()
    model(x).pow(2).mean().backward()
    opt.step()
print([g["lr"] for g in opt.param_groups], [len(g["params"]) for g in opt.param_groups])
print(model[0].weight, model[2].bias)
sd = opt.state_dict()
print(sorted(sd.keys()), sorted(sd["state"].keys()), sd["param_groups"][1]["lr"], sd["state"][2]["momentum_buffer"])
extra = nn.Parameter(torch.tensor([1.0]))
opt.add_param_group({"params": [extra], "lr": 1.0})
extra.grad = torch.tensor([0.5])
opt.step()
print(extra, len(opt.param_groups), opt.param_groups[2]["momentum"])
adam = torch.optim.Adam(model.parameters(), lr=0.1)
model(x).sum().backward()
adam.step()
state = adam.state_dict()
adam2 = torch.optim.Adam(model.parameters(), lr=0.3)
adam2.load_state_dict(state)
print(adam2.param_groups[0]["lr"], adam2.state_dict()["state"][0]["step"], adam2.state_dict()["state"][0]["exp_avg"])
