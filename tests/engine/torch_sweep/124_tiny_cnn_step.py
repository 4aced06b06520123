# A tiny CNN on fixed weights: forward shapes, cross-entropy, gradients, one SGD step and the new loss.
import torch
import torch.nn as nn
import torch.nn.functional as F


class TinyCNN(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 2, 3, padding=1)
        self.pool = nn.MaxPool2d(2)
        self.fc = nn.Linear(2 * 2 * 2, 3)

    def forward(self, x):
        x = self.pool(F.relu(self.conv(x)))
        x = torch.flatten(x, 1)
        return self.fc(x)


net = TinyCNN()
with torch.no_grad():
    for i, (name, p) in enumerate(net.named_parameters()):
        p.copy_(torch.linspace(-0.4, 0.6, p.numel()).reshape(p.shape) * (1 + i % 2))
images = torch.stack([torch.eye(4), torch.ones(4, 4) - torch.eye(4)]).unsqueeze(1)
labels = torch.tensor([2, 0])
opt = torch.optim.SGD(net.parameters(), lr=0.1)
logits = net(images)
loss = F.cross_entropy(logits, labels)
print(images.shape, logits, loss)
opt.zero_grad()
loss.backward()
print(net.conv.weight.grad[1, 0], net.conv.bias.grad, net.fc.bias.grad)
opt.step()
print(F.cross_entropy(net(images), labels), net(images).argmax(1))
print([(n, p.grad.norm().item() > 0) for n, p in net.named_parameters()])
