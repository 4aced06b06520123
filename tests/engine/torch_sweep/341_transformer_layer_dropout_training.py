# A batch-first TransformerEncoderLayer trained one step with dropout on: its output in training (dropout
# masks drawn from the seeded generator) and in eval, and the gradient reaching the first linear layer.
import torch
import torch.nn as nn

torch.manual_seed(0)
layer = nn.TransformerEncoderLayer(d_model=4, nhead=2, dim_feedforward=8, dropout=0.2, batch_first=True)
x = torch.randn(2, 3, 4)
y = layer(x)
print(y[0])
(y * torch.arange(4.0)).sum().backward()
print(layer.linear1.weight.grad[0])
layer.eval()
print(layer(x)[0])
