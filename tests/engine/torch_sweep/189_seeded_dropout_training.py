# A seeded MLP with dropout trained in train mode (masks drawn between batches of random data), then evaluated.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(123)
model = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Dropout(0.3), nn.Linear(16, 3))
opt = torch.optim.SGD(model.parameters(), lr=0.1, momentum=0.9)
for step in range(6):
    x = torch.randn(8, 4)
    y = torch.randint(0, 3, (8,))
    loss = F.cross_entropy(model(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(F.dropout(torch.ones(6), p=0.5), torch.rand(2))
model.eval()
with torch.no_grad():
    print(model(torch.ones(2, 4)))
