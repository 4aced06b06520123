# Shape mistakes in expand, reshape, permute and cat: PyTorch's exception types and words.
import torch

for label, fn in [("expand", lambda: torch.zeros(2, 3).expand(3, 3)), ("expand new -1", lambda: torch.zeros(3).expand(-1, 3)),
                  ("reshape 0", lambda: torch.zeros(0, 3).reshape(-1, 0)), ("permute dup", lambda: torch.zeros(2, 3).permute(0, 0)),
                  ("permute len", lambda: torch.zeros(2, 3).permute(0)), ("cat empty", lambda: torch.cat([]))]:
    try:
        print(label, fn())
    except Exception as exc:
        print(label, type(exc).__name__ + ":", exc)
