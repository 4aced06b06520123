# A pre-norm residual MLP block (LayerNorm, Linear, GELU) stacked twice: output statistics, grad norms per
# parameter after backward, and LayerNorm checked against the formula.
import torch
import torch.nn as nn


class ResidualBlock(nn.Module):
    def __init__(self, dim, hidden):
        super().__init__()
        self.norm = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, hidden)
        self.act = nn.GELU()
        self.fc2 = nn.Linear(hidden, dim)

    def forward(self, x):
        return x + self.fc2(self.act(self.fc1(self.norm(x))))


torch.manual_seed(12)
model = nn.Sequential(ResidualBlock(6, 12), ResidualBlock(6, 12), nn.LayerNorm(6))
print(model)
x = torch.randn(3, 5, 6)
out = model(x)
print(out.shape, out.grad_fn)
print(out.mean(dim=-1).abs().max() < 1e-5, out.std(dim=-1, unbiased=False)[0])
loss = out[..., 0].pow(2).sum()
loss.backward()
for name, p in model.named_parameters():
    print(f"{name:16s} {str(tuple(p.shape)):8s} grad_norm={p.grad.norm().item():.5f}")
ln = nn.LayerNorm(4, elementwise_affine=False, eps=1e-5)
z = torch.tensor([[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 0.0, 5.0]])
manual = (z - z.mean(-1, keepdim=True)) / torch.sqrt(z.var(-1, unbiased=False, keepdim=True) + 1e-5)
print(ln(z))
print(torch.allclose(ln(z), manual, atol=1e-6), ln)
g = nn.GELU(approximate="tanh")
print(g, g(torch.tensor([-1.0, 0.0, 1.0])), nn.GELU()(torch.tensor([-1.0, 0.0, 1.0])))
