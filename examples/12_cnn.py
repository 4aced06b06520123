# title: A small CNN forward and backward
# title_zh: 一个小型卷积网络的前向与反向
# concept: nn.Module hierarchy, convolution, large graphs collapsed by module
import torch
import torch.nn as nn
import torch.nn.functional as F


class SmallCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, kernel_size=3, padding=1)
        self.conv2 = nn.Conv2d(8, 16, kernel_size=3, padding=1)
        self.fc = nn.Linear(16 * 7 * 7, 10)

    def forward(self, x):
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)   # 28x28 -> 14x14
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)   # 14x14 -> 7x7
        return self.fc(x.flatten(1))


torch.manual_seed(0)
model = SmallCNN()
images = torch.randn(4, 1, 28, 28)
labels = torch.tensor([3, 1, 4, 1])
loss = F.cross_entropy(model(images), labels)
loss.backward()
print(loss.item(), model.conv1.weight.grad.shape)
