# Integer floor division and remainder by zero raise in PyTorch (float division gives inf).
import torch

for label, fn in [("floordiv", lambda: torch.tensor([5, -5]) // 0), ("remainder", lambda: torch.tensor([5]) % 0),
                  ("tensor", lambda: torch.tensor([5]) // torch.tensor([0])), ("float", lambda: torch.tensor([5.0]) // 0)]:
    try:
        print(label, fn())
    except RuntimeError as e:
        print(label, "RuntimeError:", e)
