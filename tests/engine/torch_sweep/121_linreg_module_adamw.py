# Linear regression as a Module trained with AdamW, then saved and loaded through state_dict.
import torch
import torch.nn as nn

x = torch.linspace(0, 1, 20).unsqueeze(1)
y = 3 * x - 1 + 0.1 * torch.sin(20 * x)


class LinReg(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.zeros(1, 1))
        self.b = nn.Parameter(torch.zeros(1))

    def forward(self, x):
        return x @ self.w + self.b


model = LinReg()
opt = torch.optim.AdamW(model.parameters(), lr=0.1, weight_decay=0.01)
loss_fn = nn.MSELoss()
history = []
for step in range(150):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    history.append(loss.item())
print([round(h, 4) for h in history[::30]])
print(model.w, model.b)
state = {k: v.clone() for k, v in model.state_dict().items()}
clone = LinReg()
print(clone.load_state_dict(state), clone.w.item() == model.w.item())
print(clone(torch.tensor([[0.0], [1.0]])))
print(opt.state[model.w]["step"], opt.state[model.b]["exp_avg_sq"])
print(model)
