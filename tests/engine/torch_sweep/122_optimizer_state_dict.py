# Optimizer state_dict contents after a few steps and loading them into a fresh optimizer.
import torch
import torch.nn as nn

model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.bias.fill_(0.1)
x = torch.tensor([[1.0, 2.0], [0.0, -1.0]])
opt = torch.optim.SGD(model.parameters(), lr=0.05, momentum=0.9, weight_decay=0.01)
for _ in range(2):
    opt.zero_grad()
    model(x).pow(2).sum().backward()
    opt.step()
sd = opt.state_dict()
print(sd["state"])
print(sd["param_groups"])
adam = torch.optim.Adam(model.parameters(), lr=0.01)
for _ in range(2):
    adam.zero_grad()
    model(x).pow(2).sum().backward()
    adam.step()
asd = adam.state_dict()
print(asd["state"][1])
print(asd["param_groups"])
fresh = torch.optim.Adam(model.parameters(), lr=0.5)
fresh.load_state_dict(asd)
print(fresh.param_groups[0]["lr"], fresh.state[model.bias]["exp_avg"], fresh.state[model.bias]["step"])
fresh.zero_grad()
model(x).pow(2).sum().backward()
fresh.step()
print(model.weight, model.bias)
