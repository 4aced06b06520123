# Indexing mistakes: assigning the wrong number of values through a mask, gather with an index out of range
# or of a float dtype.
import torch

a = torch.arange(12.0).reshape(3, 4)
for label, fn in [("mask count", lambda: a.clone().__setitem__(a > 8, torch.tensor([1.0, 2.0]))),
                  ("gather range", lambda: a.gather(1, torch.tensor([[4]]))),
                  ("gather float", lambda: a.gather(1, torch.tensor([[0.0]])))]:
    try:
        fn()
    except Exception as exc:
        print(label, type(exc).__name__ + ":", exc)
