# Keeping the best checkpoint in memory: state_dict() returns the live tensors, so without copy.deepcopy the
# "best" weights and optimizer state keep changing as training goes on; restoring from a deep copy works, and a
# loaded optimizer shares the loaded state tensors.
import copy
import torch
import torch.nn as nn

torch.manual_seed(10)
x = torch.randn(20, 3)
y = x @ torch.tensor([[1.0], [-2.0], [0.5]]) + 0.1
model = nn.Linear(3, 1)
opt = torch.optim.Adam(model.parameters(), lr=0.1)
best_loss, best_live, best_copy = float("inf"), None, None
for epoch in range(6):
    opt.zero_grad()
    loss = nn.functional.mse_loss(model(x), y)
    loss.backward()
    opt.step()
    if epoch == 2:
        best_loss = loss.item()
        best_live = {"model": model.state_dict(), "opt": opt.state_dict()}
        best_copy = copy.deepcopy(best_live)
    print(epoch, round(loss.item(), 4))
print("live  :", best_live["model"]["weight"], best_live["opt"]["state"][0]["step"])
print("copied:", best_copy["model"]["weight"], best_copy["opt"]["state"][0]["step"])
model.load_state_dict(best_copy["model"])
opt.load_state_dict(best_copy["opt"])
print(opt.state[model.weight]["step"], opt.state[model.weight]["exp_avg"] is best_copy["opt"]["state"][0]["exp_avg"])
with torch.no_grad():
    print(round(nn.functional.mse_loss(model(x), y).item(), 4), round(best_loss, 4))
