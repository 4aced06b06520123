# Writing into an element of a leaf that requires grad: PyTorch names it a view of a leaf.
import torch

p = torch.zeros(3, requires_grad=True)
try:
    p[0] = 1.0
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    p[1:].zero_()
except RuntimeError as e:
    print("RuntimeError:", e)
print(p)
