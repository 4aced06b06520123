# MSE and L1 losses, as modules and functions, with every reduction and the gradients they send back.
import torch
import torch.nn as nn
import torch.nn.functional as F

pred = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.0, -0.25]])
target = torch.tensor([[1.0, 0.0, 2.0], [-0.5, 0.25, 0.0]])
for loss_cls in [nn.MSELoss, nn.L1Loss]:
    for reduction in ["mean", "sum", "none"]:
        p = pred.clone().requires_grad_()
        loss = loss_cls(reduction=reduction)(p, target)
        if reduction == "none":
            loss.backward(torch.ones_like(loss) * 0.5)
        else:
            loss.backward()
        print(loss_cls.__name__, reduction, loss, p.grad, sep="\n")
p = pred.clone().requires_grad_()
t = (target + torch.tensor([0.0, 0.0, 0.5])).requires_grad_()
(F.mse_loss(p, t) + F.l1_loss(p[0], t[0], reduction="sum")).backward()
print(p.grad, t.grad)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
F.l1_loss(x, torch.tensor([1.0, 0.0, 5.0])).backward()
print(x.grad)
print(F.mse_loss(torch.tensor(2.0), torch.tensor(5.0)), F.mse_loss(torch.ones(2, 3), torch.zeros(2, 3), reduction="sum"))
