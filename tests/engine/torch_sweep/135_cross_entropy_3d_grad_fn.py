# cross_entropy on (N, C, L) logits (per-position classes) ends in NllLoss2DBackward0 as on images.
import torch
import torch.nn.functional as F

logits = torch.tensor([[[1.0, 0.0], [2.0, 1.0], [0.5, -1.0]]], requires_grad=True)
loss = F.cross_entropy(logits, torch.tensor([[1, 2]]))
print(loss)
