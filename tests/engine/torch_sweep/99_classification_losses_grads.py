# CrossEntropyLoss and NLLLoss with every reduction, class weights and ignore_index, and their gradients.
import torch
import torch.nn as nn
import torch.nn.functional as F

base = torch.tensor([[1.0, 2.0, 0.5], [0.0, -1.0, 3.0], [2.0, 2.0, 2.0]])
target = torch.tensor([1, 2, 0])
weight = torch.tensor([0.2, 1.0, 3.0])
for reduction in ["mean", "sum", "none"]:
    for w in [None, weight]:
        logits = base.clone().requires_grad_()
        loss = nn.CrossEntropyLoss(weight=w, reduction=reduction)(logits, target)
        loss.sum().backward()
        print(reduction, w is not None, loss)
        print(logits.grad)
for reduction in ["mean", "sum", "none"]:
    logp = F.log_softmax(base, dim=1).requires_grad_()
    loss = F.nll_loss(logp, target, weight=weight, reduction=reduction, ignore_index=0)
    loss.sum().backward()
    print("nll", reduction, loss, logp.grad, sep="\n")
logits = base.clone().requires_grad_()
loss = F.cross_entropy(logits.unsqueeze(2).expand(3, 3, 2), target.unsqueeze(1).expand(3, 2))
loss.backward()
print(loss.item(), logits.grad)
print(nn.NLLLoss(reduction="sum")(torch.log(torch.tensor([[0.25, 0.75]])), torch.tensor([1])))
