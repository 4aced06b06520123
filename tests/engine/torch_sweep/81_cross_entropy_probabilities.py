# cross_entropy with class-probability targets: every reduction, weights and label smoothing, and the
# gradients they send to the logits.
import torch
import torch.nn.functional as F

logits = torch.tensor([[2.0, 0.5, -1.0], [0.1, 0.2, 0.3]], requires_grad=True)
probs = torch.tensor([[0.7, 0.2, 0.1], [0.0, 0.0, 1.0]])
weight = torch.tensor([1.0, 2.0, 0.5])
print(F.cross_entropy(logits, probs, reduction="sum"))
print(F.cross_entropy(logits, probs, reduction="none"))
print(F.cross_entropy(logits, probs, weight=weight, reduction="sum", label_smoothing=0.1))
for reduction in ["mean", "sum"]:
    logits.grad = None
    loss = F.cross_entropy(logits, probs, weight=weight, reduction=reduction, label_smoothing=0.2)
    loss.backward()
    print(reduction, round(loss.item(), 4), logits.grad)
images = torch.sin(torch.arange(24.0)).reshape(2, 3, 2, 2).requires_grad_()
soft = torch.softmax(torch.cos(torch.arange(24.0)).reshape(2, 3, 2, 2), dim=1)
print(F.cross_entropy(images, soft, reduction="none"))
