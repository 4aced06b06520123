# Dropout: identity in eval mode and with p=0; with p=1 everything is zeroed; scaling in train mode.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.arange(1.0, 7.0)
d = nn.Dropout(p=0.5)
d.eval()
print(d(x), d)
print(nn.Dropout(0.0)(x), F.dropout(x, p=1.0), F.dropout(x, p=0.5, training=False))
d.train()
out = d(x)
kept = out != 0
print(torch.allclose(out[kept], x[kept] * 2))
x.requires_grad_(True)
y = F.dropout(x, p=0.0, training=True)
y.sum().backward()
print(x.grad)
try:
    nn.Dropout(1.5)
except ValueError as e:
    print("ValueError:", e)
