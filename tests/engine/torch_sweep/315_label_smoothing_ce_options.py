# CrossEntropyLoss options a course shows: class weights, ignore_index, label_smoothing, reduction='none',
# and cross entropy equal to nll_loss(log_softmax).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(8)
logits = torch.randn(5, 4, requires_grad=True)
target = torch.tensor([0, 3, 1, -100, 2])
print(F.cross_entropy(logits, target))
print(F.cross_entropy(logits, target, reduction="none"))
print(F.cross_entropy(logits, target, reduction="sum"))
w = torch.tensor([1.0, 2.0, 0.5, 1.0])
print(nn.CrossEntropyLoss(weight=w)(logits, target))
print(nn.CrossEntropyLoss(label_smoothing=0.1)(logits, target))
print(nn.CrossEntropyLoss(weight=w, label_smoothing=0.2, reduction="none")(logits, target))
t2 = torch.tensor([0, 3, 1, 1, 2])
print(F.cross_entropy(logits, t2, ignore_index=1))
print(F.nll_loss(F.log_softmax(logits, dim=1), t2), F.cross_entropy(logits, t2))
loss = nn.CrossEntropyLoss(label_smoothing=0.1)(logits, t2)
loss.backward()
print(logits.grad)
print(logits.grad.sum(dim=1).abs().max() < 1e-6)
probs = torch.softmax(logits.detach(), dim=1)
print(nn.NLLLoss(reduction="none")(torch.log(probs), t2))
