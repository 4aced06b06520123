# hardtanh, relu6, hardswish, hardsigmoid, elu, mish and silu: values at and around their kinks, grad_fn names,
# gradients, in-place forms, integer inputs, the modules' reprs; isinf/isposinf/isneginf/isfinite.
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.tensor([-4.0, -3.0, -2.5, -1.0, -0.5, 0.0, 0.5, 1.0, 2.9, 3.0, 6.0, 7.5, float("nan")])
for name, f in [("hardtanh", F.hardtanh), ("hardtanh(-2, 2)", lambda a: F.hardtanh(a, -2.0, 2.0)), ("relu6", F.relu6),
                ("hardswish", F.hardswish), ("hardsigmoid", F.hardsigmoid), ("elu", F.elu),
                ("elu(0.3)", lambda a: F.elu(a, alpha=0.3)), ("mish", F.mish), ("silu", F.silu)]:
    v = x[:-1].clone().requires_grad_()
    y = f(v)
    y.sum().backward()
    print(name, f(x), y.grad_fn.name())
    print("  grad", v.grad)
torch.manual_seed(0)
z = torch.randn(3, 4, dtype=torch.float64) * 3
for f in [F.mish, F.elu, F.hardswish]:
    print(f(z))
print(F.relu6(torch.tensor([1, 7, -3])), F.hardtanh(torch.tensor([1, 7, -3])))
for f in [F.elu, F.mish, F.hardswish]:
    try:
        f(torch.tensor([1, 2]))
    except NotImplementedError as e:
        print(e)
try:
    F.hardtanh(x, 2.0, 1.0)
except ValueError as e:
    print(e)
w = torch.randn(4, requires_grad=True)
for f in [lambda a: F.elu(a, inplace=True), lambda a: F.hardtanh(a, inplace=True), lambda a: F.relu6(a, inplace=True),
          lambda a: F.hardswish(a, inplace=True), lambda a: F.mish(a, inplace=True)]:
    c = w.clone()
    out = f(c)
    print(out is c, out.grad_fn.name())
    out.sum().backward()
print(w.grad)
print(nn.ELU(), nn.ELU(alpha=0.5, inplace=True), nn.Hardtanh(), nn.Hardtanh(-2, 3), nn.ReLU6(), nn.ReLU6(inplace=True))
print(nn.Hardswish(), nn.Mish(), nn.SiLU(), nn.Hardsigmoid(), nn.Mish(inplace=True))
print(nn.Sequential(nn.Linear(2, 2), nn.ReLU6(), nn.ELU(), nn.Hardswish()))
m = nn.Sequential(nn.Linear(4, 3), nn.ELU(), nn.Linear(3, 2), nn.Mish())
print(m(torch.randn(2, 4)))
s = torch.tensor([1.0, float("inf"), -float("inf"), float("nan"), 0.0])
print(torch.isinf(s), torch.isposinf(s), torch.isneginf(s), torch.isfinite(s), s.isinf(), s.isfinite())
print(torch.isinf(torch.tensor([1, 2])), torch.isfinite(torch.tensor([1, 2])), s.isposinf(), s.isneginf())
print(torch.isinf(s).dtype, (s * 2).isfinite().sum())
