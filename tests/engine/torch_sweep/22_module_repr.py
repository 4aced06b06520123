# Module reprs and the module tree: children, named_modules, extra_repr, ModuleList/Dict.
import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc = nn.Linear(dim, dim * 2, bias=False)
        self.act = nn.GELU()

    def forward(self, x):
        return self.act(self.fc(self.norm(x)))


class Scale(nn.Module):
    def __init__(self, s):
        super().__init__()
        self.s = s

    def extra_repr(self):
        return f"s={self.s}"


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.embed = nn.Embedding(10, 4)
        self.blocks = nn.ModuleList([Block(4), Block(4)])
        self.heads = nn.ModuleDict({"a": nn.Linear(8, 2), "b": nn.Identity()})
        self.scale = Scale(0.5)
        self.seq = nn.Sequential(nn.Conv2d(3, 8, kernel_size=3, stride=2, padding=1), nn.ReLU(inplace=True),
                                 nn.MaxPool2d(2), nn.AvgPool2d(2, stride=1), nn.Dropout(p=0.1),
                                 nn.BatchNorm2d(8), nn.Flatten(), nn.Softmax(dim=1), nn.LogSoftmax(dim=-1),
                                 nn.Tanh(), nn.Sigmoid(), nn.LeakyReLU(0.2), nn.SiLU(), nn.Softplus(),
                                 nn.AdaptiveAvgPool2d((1, 1)), nn.BatchNorm1d(3, momentum=0.2, affine=False),
                                 nn.GELU(approximate='tanh'), nn.Conv2d(2, 2, (1, 3), bias=False))


m = Model()
print(m)
print([name for name, _ in m.named_children()])
print([name for name, _ in m.named_modules()][:8])
print([name for name, _ in m.named_parameters()][:6])
print(m.blocks[0].fc, m.scale, len(m.blocks), m.heads["a"])
print(m.training, m.eval().training, m.blocks[1].training)
print(nn.Embedding(5, 3, padding_idx=0), nn.LayerNorm((2, 3), eps=1e-6), nn.Linear(2, 3).weight.shape)
