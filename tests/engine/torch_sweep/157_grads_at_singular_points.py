# Gradients where the formula divides by zero: PyTorch returns 0 for the std of a constant, the norm of a zero
# vector and the base of 0 ** 0, not nan.
import torch

for label, fn, value in [("std", lambda t: t.std(), [2.0, 2.0]), ("norm", lambda t: t.norm(), [0.0, 0.0]),
                         ("norm dim", lambda t: t.norm(dim=1), [[0.0, 0.0], [3.0, 4.0]]),
                         ("pow", lambda t: t ** torch.tensor([0.0, 2.0]), [0.0, 0.0])]:
    x = torch.tensor(value, requires_grad=True)
    out = fn(x)
    out.sum().backward()
    print(label, out.detach(), x.grad)
