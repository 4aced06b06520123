# After torch.manual_seed, default layer initialisation (Linear, Conv2d, Embedding) and every nn.init scheme give
# PyTorch's values, so a forward pass prints the same numbers.
import math
import torch
import torch.nn as nn
torch.manual_seed(0)
lin = nn.Linear(3, 2)
print(lin.weight, lin.bias)
conv = nn.Conv2d(1, 2, 2)
print(conv.weight.flatten(), conv.bias)
emb = nn.Embedding(4, 3, padding_idx=0)
print(emb.weight)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2))
print(model[2].weight, model[0].bias)
x = torch.randn(5, 4)
print(model(x))
w = torch.empty(3, 5)
for f in [nn.init.xavier_uniform_, nn.init.xavier_normal_, nn.init.kaiming_uniform_, nn.init.kaiming_normal_, nn.init.normal_, nn.init.uniform_, nn.init.trunc_normal_, nn.init.orthogonal_]:
    f(w)
    print(f.__name__, w)
w64 = torch.empty(2, 20, dtype=torch.float64)
nn.init.normal_(w64, 1.0, 0.1); print(w64[:, :3])
nn.init.uniform_(w64, -2, 2); print(w64[:, :3])
nn.init.trunc_normal_(w64, std=0.5, a=-0.3, b=0.3); print(w64[:, :3])
big = torch.empty(40, 30)
nn.init.trunc_normal_(big, std=0.02); print(big[0, :4], big.abs().max() <= 0.04)
nn.init.kaiming_normal_(big, mode="fan_out", nonlinearity="relu"); print(big[1, :4])
g = torch.Generator().manual_seed(5)
print(nn.init.uniform_(torch.empty(3), generator=g), nn.init.normal_(torch.empty(2), generator=g))
ln = nn.LayerNorm(3); bn = nn.BatchNorm1d(2)
print(torch.randn(2))
