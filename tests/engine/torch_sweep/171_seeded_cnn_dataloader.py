# A seeded CNN on random images: default initialisation, a shuffled DataLoader, cross-entropy, SGD with momentum.
import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.utils.data import DataLoader, TensorDataset

torch.manual_seed(1)
images = torch.randn(24, 1, 8, 8)
labels = torch.randint(0, 3, (24,))
loader = DataLoader(TensorDataset(images, labels), batch_size=8, shuffle=True)


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(4, 8, kernel_size=3)
        self.fc = nn.Linear(8 * 2 * 2, 3)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.relu(self.conv2(x))
        return self.fc(torch.flatten(x, 1))


net = SmallCNN()
opt = torch.optim.SGD(net.parameters(), lr=0.05, momentum=0.9)
for epoch in range(3):
    total = 0.0
    for xb, yb in loader:
        opt.zero_grad()
        loss = F.cross_entropy(net(xb), yb)
        loss.backward()
        opt.step()
        total += loss.item()
    print(epoch, round(total / len(loader), 4))
with torch.no_grad():
    print(net(images[:4]).argmax(1), labels[:4])
print(net.conv1.weight.grad[0, 0], net.fc.bias)
