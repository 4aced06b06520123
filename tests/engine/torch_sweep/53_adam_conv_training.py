# A few Adam steps on a conv net (Conv2d, ReLU, MaxPool2d, Flatten, Linear) with weight decay.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Conv2d(1, 3, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2), nn.Flatten(),
                      nn.Linear(3 * 3 * 3, 4))
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape).roll(i) if False else
                torch.linspace(-0.3, 0.3, p.numel()).reshape(p.shape) * (-1) ** i)
x = torch.linspace(-1, 1, 4 * 36).reshape(4, 1, 6, 6).cos()
y = torch.tensor([0, 1, 2, 3])
opt = torch.optim.Adam(model.parameters(), lr=0.01, weight_decay=1e-3)
loss_fn = nn.CrossEntropyLoss()
for step in range(15):
    opt.zero_grad()
    loss = loss_fn(model(x), y)
    loss.backward()
    opt.step()
    if step % 5 == 4:
        print(step, loss.item())
print(model[0].bias, model[4].bias)
print(model(x).argmax(1))
opt.zero_grad(set_to_none=False)
print(model[4].bias.grad)
opt.zero_grad()
print(model[4].bias.grad)
