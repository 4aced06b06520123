# nn.GroupNorm / F.group_norm (values, NativeGroupNormBackward0, gradients of input and affine parameters, errors)
# and nn.LazyLinear (uninitialized until the first forward, which sizes and initializes it and makes it a Linear).
import torch
import torch.nn as nn
import torch.nn.functional as F
import warnings
warnings.simplefilter("ignore")
torch.manual_seed(0)
gn = nn.GroupNorm(3, 6)
print(gn, nn.GroupNorm(2, 4, eps=1e-3, affine=False))
x = torch.randn(2, 6, 3, 2, requires_grad=True)
y = gn(x)
print(y[1, 4], y.grad_fn.name())
with torch.no_grad():
    gn.weight.copy_(torch.linspace(0.5, 1.5, 6))
    gn.bias.copy_(torch.linspace(-1, 1, 6))
y = gn(x)
(y * torch.arange(72.).reshape(2, 6, 3, 2)).sum().backward()
print(y[0, 5], x.grad[0, 2], gn.weight.grad, gn.bias.grad)
print(F.group_norm(torch.randn(3, 4, 5), 2, eps=0.1)[2, 3], F.group_norm(torch.randn(2, 4), 1)[0])
for bad in [lambda: nn.GroupNorm(4, 6), lambda: F.group_norm(torch.randn(2, 6, 4), 4)]:
    try:
        bad()
    except (ValueError, RuntimeError) as e:
        print(type(e).__name__, e)
net = nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.GroupNorm(4, 8), nn.SiLU())
print(net(torch.randn(1, 3, 4, 4))[0, 7, 1])
lazy = nn.LazyLinear(3)
print(lazy, lazy.weight, lazy.has_uninitialized_params())
out = lazy(torch.randn(2, 5))
print(lazy, type(lazy).__name__, lazy.weight.shape, lazy.bias.shape, out.shape, out.grad_fn.name())
print(lazy.weight[0], lazy.bias)
model = nn.Sequential(nn.LazyLinear(4), nn.ReLU(), nn.LazyLinear(1, bias=False))
model(torch.randn(3, 7))
print(model, sum(p.numel() for p in model.parameters()))
opt = torch.optim.SGD(model.parameters(), lr=0.1)
loss = model(torch.randn(3, 7)).pow(2).mean()
loss.backward()
opt.step()
print(round(loss.item(), 5), model[2].weight)
