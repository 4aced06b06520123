# Reprs of nested containers holding custom modules with and without extra_repr.
import torch
import torch.nn as nn


class Residual(nn.Module):
    def __init__(self, inner):
        super().__init__()
        self.inner = inner

    def forward(self, x):
        return x + self.inner(x)


class Scale(nn.Module):
    def __init__(self, factor, learnable=False):
        super().__init__()
        self.factor = factor
        self.learnable = learnable

    def extra_repr(self):
        return f"factor={self.factor}, learnable={self.learnable}"

    def forward(self, x):
        return x * self.factor


class Empty(nn.Module):
    pass


class WithParam(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = nn.Parameter(torch.ones(3))


blocks = nn.ModuleList([Residual(nn.Sequential(nn.Linear(4, 4), nn.ReLU())) for _ in range(2)])
model = nn.Sequential(Scale(0.5), blocks[0], nn.Sequential(Scale(2.0, True), nn.Sequential(Empty(), WithParam())),
                      nn.ModuleList(), nn.ModuleDict({"out": nn.Linear(4, 1)}))
print(model)
print(blocks)
print(Empty(), WithParam(), Scale(3), nn.Sequential(), nn.ModuleList([Empty()]))
print(repr(model[2][1]))
print(str(Residual(Scale(1))))
