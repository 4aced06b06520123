# Shapes that do not broadcast: PyTorch's RuntimeError.
import torch

try:
    torch.ones(2, 3) + torch.ones(4)
except RuntimeError as e:
    print("RuntimeError:", e)
