# Losses with every reduction; cross-entropy with weights, ignore_index and label smoothing.
import torch
import torch.nn as nn
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3], [-1.0, 3.0, 0.0], [0.0, 0.0, 0.0]], requires_grad=True)
target = torch.tensor([0, 2, 1, 1])
for reduction in ["mean", "sum", "none"]:
    print(reduction, F.cross_entropy(logits, target, reduction=reduction))
print(F.cross_entropy(logits, target, weight=torch.tensor([1.0, 2.0, 0.5])))
print(F.cross_entropy(logits, torch.tensor([0, -100, 1, 1])))
print(nn.CrossEntropyLoss(ignore_index=1)(logits, target))
print(F.cross_entropy(logits, target, label_smoothing=0.1))
print(F.nll_loss(F.log_softmax(logits, dim=1), target))
pred = torch.tensor([0.5, -1.0, 2.0, 0.0], requires_grad=True)
y = torch.tensor([1.0, 0.0, 2.5, -0.5])
for reduction in ["mean", "sum", "none"]:
    print(F.mse_loss(pred, y, reduction=reduction), F.l1_loss(pred, y, reduction=reduction))
    print(F.smooth_l1_loss(pred, y, reduction=reduction).detach(), F.huber_loss(pred, y, reduction=reduction, delta=0.5).detach())
p = torch.tensor([0.9, 0.2, 0.6, 0.01])
t = torch.tensor([1.0, 0.0, 0.0, 1.0])
print(F.binary_cross_entropy(p, t), nn.BCELoss(reduction="sum")(p, t))
print(F.binary_cross_entropy_with_logits(pred, t), F.binary_cross_entropy_with_logits(pred, t, pos_weight=torch.tensor(3.0)))
loss = F.cross_entropy(logits, target) + F.mse_loss(pred, y)
loss.backward()
print(logits.grad)
print(pred.grad)
print(nn.MSELoss(), nn.CrossEntropyLoss(label_smoothing=0.1))
