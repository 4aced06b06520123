# Modifying a saved tensor in place breaks backward: PyTorch's version-counter error names the op
# that made the tensor ("output 0 of Add"), even when an in-place op changed it later.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = a * 2
z = y ** 2
y.add_(1)
try:
    z.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
w = a.exp()
w2 = w * w
w.zero_()
try:
    w2.sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
