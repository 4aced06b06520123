# Reprs: a module with a two-line extra_repr and a child, folded runs of identical modules in ModuleList (not
# in Sequential), ModuleLists nested in ModuleDict and Sequential.
import torch
import torch.nn as nn
class Block(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.d = d
        self.fc = nn.Linear(d, d)
    def extra_repr(self):
        return f"d={self.d},\nnote=two lines"
print(Block(2))
print(nn.Sequential(*[nn.Linear(2, 2) for _ in range(3)]))
print(nn.ModuleList([nn.Linear(2, 2) for _ in range(3)] + [nn.ReLU(), nn.ReLU()]))
print(nn.ModuleList([Block(2), Block(2)]))
print(nn.ModuleDict({"a": nn.ModuleList([nn.ReLU()] * 2)}))
print(nn.Sequential(nn.ModuleList([nn.Linear(1, 1)] * 3)))
