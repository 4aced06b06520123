# A full classifier training loop: MLP, CrossEntropyLoss, SGD momentum, accuracy per epoch.
import math
import torch
import torch.nn as nn

n = 60
angle = torch.linspace(0, 4 * math.pi, n)
X = torch.stack([angle.cos() * angle / 10, angle.sin() * angle / 10], dim=1)
y = (torch.arange(n) % 3)


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


model = MLP()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape).mul(((i + 1) * 7 % 5) / 5).sin())
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for epoch in range(30):
    model.train()
    for start in range(0, n, 20):
        xb, yb = X[start:start + 20], y[start:start + 20]
        optimizer.zero_grad()
        loss = criterion(model(xb), yb)
        loss.backward()
        optimizer.step()
    if epoch % 10 == 9:
        model.eval()
        with torch.no_grad():
            logits = model(X)
            acc = (logits.argmax(dim=1) == y).float().mean()
        print(f"epoch {epoch + 1}: loss {loss.item():.4f} acc {acc.item():.3f}")
print(model(X[:3]))
print(torch.softmax(model(X[:2]), dim=1))
