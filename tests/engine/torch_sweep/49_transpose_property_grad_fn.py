# On a 2-D tensor `.T` is a permute in PyTorch 2 (PermuteBackward0), `.mT` and `.transpose(0, 1)` are
# TransposeBackward0; only `.t()` is TBackward0.
import torch

w = torch.ones(2, 3, requires_grad=True)
print(w.T.grad_fn, w.mT.grad_fn, w.transpose(0, 1).grad_fn, w.t().grad_fn)
