# clamp_min and clamp_max are their own backward functions in PyTorch (clamp(min=...) is ClampBackward1).
import torch

a = torch.ones(2, requires_grad=True)
print(a.clamp_min(0).grad_fn, a.clamp_max(0).grad_fn, a.clamp(min=0).grad_fn)
