# 1-d pooling (MaxPool1d, AvgPool1d, AdaptiveAvgPool1d and their functions: PyTorch runs them as the 2-d op on
# input.unsqueeze(-2), squeezed after), Softsign and Tanhshrink (PyTorch's own compositions): values, gradients,
# grad_fn chains and module reprs; and a traced module's class.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
x = torch.randn(2, 3, 7, requires_grad=True)


def chain(t):
    names, fn = [], t.grad_fn
    while fn is not None and len(names) < 4:
        names.append(type(fn).__name__)
        fn = fn.next_functions[0][0] if fn.next_functions else None
    return names


for label, y in [("max_pool1d", F.max_pool1d(x, 2)), ("max_pool1d s1 p1", F.max_pool1d(x, 3, 1, 1)),
                 ("max_pool1d ceil", F.max_pool1d(x, 2, ceil_mode=True)),
                 ("avg_pool1d", F.avg_pool1d(x, 3, 2)), ("avg_pool1d pad", F.avg_pool1d(x, 3, 2, 1, count_include_pad=False)),
                 ("avg_pool1d ceil", F.avg_pool1d(x, 2, ceil_mode=True)),
                 ("adaptive_avg_pool1d", F.adaptive_avg_pool1d(x, 3)), ("adaptive 1", F.adaptive_avg_pool1d(x, 1)),
                 ("unbatched", F.max_pool1d(x[0], 2)), ("softsign", F.softsign(x)), ("tanhshrink", F.tanhshrink(x))]:
    x.grad = None
    (y * torch.arange(y.numel()).view(y.shape)).sum().backward()
    print(label, tuple(y.shape), chain(y) if y.dim() == 3 else "")   # (unbatched 2-d pooling: its own chain)
    print(y.detach()[0, :2] if y.dim() == 3 else y.detach()[:2])
    print(x.grad[0, :2])
mods = [nn.MaxPool1d(2), nn.MaxPool1d(3, 2, 1, ceil_mode=True), nn.AvgPool1d(2), nn.AvgPool1d(3, stride=1, padding=1),
        nn.AdaptiveAvgPool1d(4), nn.Softsign(), nn.Tanhshrink()]
for m in mods:
    print(m, type(m), m(x).shape)
print(nn.Sequential(nn.Conv1d(3, 4, 3), nn.ReLU(), nn.MaxPool1d(2), nn.Flatten())(x).shape)
with torch.no_grad():
    print(F.max_pool1d(x, 2)[0, 0], F.max_pool1d(x, 2).grad_fn)
traced = torch.jit.trace(nn.Linear(3, 2), torch.ones(1, 3))
print(type(traced), isinstance(traced, torch.jit.ScriptModule))
