# A small CNN: Conv2d, BatchNorm2d, ReLU, MaxPool2d, Dropout, Linear; deterministic weights.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 4, 3, padding=1)
        self.bn1 = nn.BatchNorm2d(4)
        self.pool = nn.MaxPool2d(2, 2)
        self.conv2 = nn.Conv2d(4, 6, 3)
        self.dropout = nn.Dropout(0.25)
        self.fc1 = nn.Linear(6 * 2 * 2, 10)
        self.fc2 = nn.Linear(10, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.bn1(self.conv1(x))))
        x = F.relu(self.conv2(x))
        x = torch.flatten(x, 1)
        x = self.dropout(x)
        x = F.relu(self.fc1(x))
        return self.fc2(x)


net = Net()
with torch.no_grad():
    for i, (name, p) in enumerate(net.named_parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + i % 3) / 2)
print(net)
print(sum(p.numel() for p in net.parameters()))
net.eval()
x = torch.arange(2 * 8 * 8, dtype=torch.float32).reshape(2, 1, 8, 8).sin()
out = net(x)
print(out)
target = torch.tensor([2, 0])
loss = F.cross_entropy(out, target)
print(loss)
loss.backward()
print(net.fc2.weight.grad)
print(net.conv1.weight.grad.sum(dim=(1, 2, 3)))
print(net.bn1.weight.grad, net.bn1.running_mean)
print(out.argmax(dim=1))
net.train()
out2 = net.conv1(x)
print(net.bn1(out2).mean().item() < 1e-5, net.bn1.running_mean)
