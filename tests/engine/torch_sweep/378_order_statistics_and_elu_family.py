# torch.median / kthvalue / mode / cummax / cummin with ties and NaN (which index PyTorch returns), their
# gradients and node names; F.selu, F.celu, F.logsigmoid and their modules; F.interpolate's bicubic and
# area modes: values and gradients as PyTorch 2.13 prints them.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
x = torch.tensor([[3.0, 1.0, 2.0, 2.0, 5.0, 2.0], [0.5, float("nan"), 0.5, -1.0, 0.5, 4.0]], requires_grad=True)
print(torch.median(x[0]), x[1].median(), torch.median(x, 1), x.median(dim=0, keepdim=True))
print(torch.kthvalue(x, 3, 1), x.kthvalue(2, dim=0), torch.mode(x, 1), x[0].mode())
print(torch.cummax(x, 1), x.cummin(dim=1))
for f in [lambda t: t[0].median(), lambda t: t.median(1).values.sum(), lambda t: t.kthvalue(2, 1).values.sum(),
          lambda t: t.mode(1).values.sum(), lambda t: t.cummax(1).values.sum(), lambda t: t[0].cummin(0).values.sum()]:
    y = f(x)
    y.backward()
    print(y.grad_fn.name() if y.grad_fn.name() != "SumBackward0" else y.grad_fn.next_functions[0][0].name(), x.grad)
    x.grad = None
ties = torch.randint(0, 4, (3, 40)).float()
print(ties.mode(1), ties.kthvalue(15, 1).indices, ties.median(1).indices, torch.median(torch.arange(6.)))
try:
    torch.kthvalue(x, 7, 1)
except RuntimeError as e:
    print(e)
z = torch.linspace(-3, 3, 7, requires_grad=True)
for act in [F.selu, lambda t: F.celu(t, 0.5), F.logsigmoid, nn.SELU(), nn.CELU(2.0), nn.LogSigmoid()]:
    y = act(z)
    y.backward(torch.ones_like(y))
    print(y, z.grad)
    z.grad = None
print(nn.SELU(), nn.CELU(0.5), nn.LogSigmoid(), nn.SELU(inplace=True))
w = z.detach().clone().requires_grad_()
y = F.selu(w * 1, inplace=True)
print(y.grad_fn.name())
img = torch.randn(1, 2, 4, 5, requires_grad=True)
for kw in [dict(scale_factor=2, mode="bicubic"), dict(size=(3, 7), mode="bicubic", align_corners=True),
           dict(size=(2, 3), mode="area"), dict(scale_factor=0.5, mode="area")]:
    y = F.interpolate(img, **kw)
    print(kw, y.shape, y.grad_fn.name())
    print(y[0, 1, :2])
    (y * y).sum().backward()
    print(img.grad[0, 0])
    img.grad = None
print(F.interpolate(torch.arange(7.).reshape(1, 1, 7), size=3, mode="area"))
