# BatchNorm1d: batch statistics in train mode, running statistics in eval mode, momentum updates.
import torch
import torch.nn as nn

bn = nn.BatchNorm1d(3)
x = torch.tensor([[1.0, 2.5, 3.0], [2.0, 4.0, 9.5], [3.0, 0.0, -3.0], [6.5, 2.0, 3.0]])
for _ in range(3):
    out = bn(x)
print(out.detach())
print(bn.running_mean, bn.running_var, bn.num_batches_tracked)
bn.eval()
print(bn(x).detach())
bn2 = nn.BatchNorm1d(3, momentum=None)
bn2(x)
bn2(x * 2)
print(bn2.running_mean, bn2.running_var)
bn3 = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
bn3.eval()
print(bn3(x)[0])
xr = x.clone().requires_grad_()
bn.train()
bn(xr).pow(3).sum().backward()
print(xr.grad)
print(bn.weight.grad, bn.bias.grad)
print(bn.state_dict().keys())
