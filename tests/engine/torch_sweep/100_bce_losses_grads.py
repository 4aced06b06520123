# BCELoss and BCEWithLogitsLoss with every reduction, weights and pos_weight, and their gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

probs = torch.tensor([[0.9, 0.2], [0.4, 0.999]])
logits = torch.tensor([[2.0, -1.5], [0.0, 8.0]])
target = torch.tensor([[1.0, 0.0], [1.0, 0.5]])
for reduction in ["mean", "sum", "none"]:
    p = probs.clone().requires_grad_()
    loss = nn.BCELoss(reduction=reduction)(p, target)
    loss.sum().backward()
    print("bce", reduction, loss, p.grad, sep="\n")
    z = logits.clone().requires_grad_()
    loss = nn.BCEWithLogitsLoss(reduction=reduction, pos_weight=torch.tensor([2.0, 0.5]))(z, target)
    loss.sum().backward()
    print("logits", reduction, loss, z.grad, sep="\n")
p = probs.clone().requires_grad_()
loss = F.binary_cross_entropy(p, target, weight=torch.tensor([1.0, 3.0]))
loss.backward()
print(loss, p.grad)
z = logits.clone().requires_grad_()
loss = F.binary_cross_entropy_with_logits(z, target, weight=torch.tensor([[0.5], [2.0]]))
loss.backward()
print(loss, z.grad)
print(F.binary_cross_entropy(torch.tensor([0.0, 1.0]), torch.tensor([0.0, 0.0])))
print(F.binary_cross_entropy_with_logits(torch.tensor([-100.0, 100.0]), torch.tensor([1.0, 0.0])))
print(torch.sigmoid(logits), F.binary_cross_entropy(torch.sigmoid(logits), target))
