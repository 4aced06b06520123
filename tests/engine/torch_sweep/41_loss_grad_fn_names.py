# grad_fn names of smooth_l1_loss, huber_loss and cross-entropy with class probabilities.
import torch
import torch.nn.functional as F

pred = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
y = torch.tensor([1.0, 0.0, 2.5, -0.5])
print(F.smooth_l1_loss(pred, y), F.huber_loss(pred, y, delta=0.5))
print(F.smooth_l1_loss(pred, y, reduction="none"))
logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
print(F.cross_entropy(logits, torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]])))
