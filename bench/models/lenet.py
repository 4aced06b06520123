# bench model: LeNet-5 as the PyTorch 60-minute blitz writes it (pytorch/tutorials,
# beginner_source/blitz/neural_networks_tutorial.py), batch 64 x 1 x 32 x 32, one SGD step.
import torch
import torch.nn as nn
import torch.nn.functional as F


class Net(nn.Module):
    def __init__(self):
        super(Net, self).__init__()
        self.conv1 = nn.Conv2d(1, 6, 5)
        self.conv2 = nn.Conv2d(6, 16, 5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, 10)

    def forward(self, input):
        c1 = F.relu(self.conv1(input))
        s2 = F.max_pool2d(c1, (2, 2))
        c3 = F.relu(self.conv2(s2))
        s4 = F.max_pool2d(c3, 2)
        s4 = torch.flatten(s4, 1)
        f5 = F.relu(self.fc1(s4))
        f6 = F.relu(self.fc2(f5))
        return self.fc3(f6)


# --- bench: setup ---
torch.manual_seed(0)
net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.01)
criterion = nn.MSELoss()
x = torch.randn(64, 1, 32, 32)
target = torch.randn(64, 10)
# --- bench: step ---
optimizer.zero_grad()
loss = criterion(net(x), target)
loss.backward()
optimizer.step()
print(f"loss {loss.item():.4f}")
