# The order of named_parameters, children and modules follows registration order; shared modules appear once.
import torch
import torch.nn as nn


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 4)
        self.gate = nn.Parameter(torch.tensor([0.5, -0.5, 1.0, 0.0]))
        self.norm = nn.LayerNorm(4)

    def forward(self, x):
        return self.norm(self.proj(x) * self.gate)


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.temperature = nn.Parameter(torch.tensor(2.0))
        self.enc = Encoder()
        self.head = nn.Sequential(nn.ReLU(), nn.Linear(4, 2))
        self.tied = self.head[1]
        self.register_buffer("steps", torch.zeros((), dtype=torch.long))

    def forward(self, x):
        return self.tied(self.enc(x)) / self.temperature


net = Net()
for name, p in net.named_parameters():
    print(name, tuple(p.shape))
print([n for n, _ in net.named_children()])
print([n for n, _ in net.named_modules()])
print([type(m).__name__ for m in net.modules()])
print([type(m).__name__ for m in net.children()])
print(len(list(net.parameters())), sum(p.numel() for p in net.parameters()))
print(list(net.state_dict().keys()))
print([n for n, _ in net.enc.named_parameters(prefix="enc")], [n for n, _ in net.named_parameters(recurse=False)])
print([n for n, _ in net.named_buffers()], net.get_submodule("head.1"), net.get_parameter("enc.gate"))
print(net.state_dict()["enc.gate"], net.state_dict()["temperature"], net.state_dict()["steps"])
