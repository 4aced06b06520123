# Dynamic depth with ModuleList, a ModuleDict of heads, named_modules / children / modules counts,
# Sequential indexing and slicing, apply() for initialisation.
import torch
import torch.nn as nn


class MultiHead(nn.Module):
    def __init__(self, sizes):
        super().__init__()
        self.layers = nn.ModuleList([nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:])])
        self.heads = nn.ModuleDict({"cls": nn.Linear(sizes[-1], 3), "reg": nn.Linear(sizes[-1], 1)})

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return {name: head(x) for name, head in self.heads.items()}


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.xavier_uniform_(m.weight)
        nn.init.zeros_(m.bias)


torch.manual_seed(6)
net = MultiHead([4, 8, 8, 5])
print(net)
net.apply(init_weights)
print(len(net.layers), len(list(net.children())), len(list(net.modules())))
print([name for name, _ in net.named_modules()])
out = net(torch.randn(2, 4))
print({k: v.shape for k, v in out.items()})
print(out["cls"])
print(net.heads["reg"].bias, net.layers[-1].weight.shape)
seq = nn.Sequential(nn.Linear(3, 3), nn.ReLU(), nn.Linear(3, 1), nn.Sigmoid())
print(seq[:2])
print(seq[-1], len(seq))
seq.append(nn.Identity())
print(len(seq), seq[4])
net.layers.append(nn.Linear(5, 5))
print(len(net.layers), "heads" in dict(net.named_children()), list(net.heads.keys()))
