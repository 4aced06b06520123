# A 3-class classifier on synthetic 2-D points: DataLoader batches, CrossEntropyLoss, Adam, accuracy per epoch.
import torch
import torch.nn as nn
from torch.utils.data import DataLoader, TensorDataset

angles = torch.linspace(0, 6.0, 60)
X = torch.stack([torch.cos(angles) * (1 + angles / 6), torch.sin(angles) * (1 + angles / 6)], dim=1)
y = (torch.arange(60) // 20).long()
loader = DataLoader(TensorDataset(X, y), batch_size=16)


class Classifier(nn.Module):
    def __init__(self):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, 16), nn.ReLU(), nn.Linear(16, 3))

    def forward(self, x):
        return self.net(x)


model = Classifier()
with torch.no_grad():
    for i, p in enumerate(model.parameters()):
        p.copy_(torch.sin(torch.arange(p.numel(), dtype=torch.float32) * (i + 1.3)).reshape(p.shape) * 0.5)
criterion = nn.CrossEntropyLoss()
optimizer = torch.optim.Adam(model.parameters(), lr=0.02)
for epoch in range(8):
    total, correct = 0.0, 0
    for xb, yb in loader:
        optimizer.zero_grad()
        logits = model(xb)
        loss = criterion(logits, yb)
        loss.backward()
        optimizer.step()
        total += loss.item() * len(xb)
        correct += (logits.argmax(dim=1) == yb).sum().item()
    print(f"epoch {epoch}: loss {total / len(X):.4f} acc {correct / len(X):.3f}")
model.eval()
with torch.no_grad():
    probs = torch.softmax(model(X[::15]), dim=1)
print(probs)
print(model.net[2].bias, optimizer.state[model.net[2].bias]["step"])
