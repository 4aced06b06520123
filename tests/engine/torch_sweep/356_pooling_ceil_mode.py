# Pooling options: max_pool2d and avg_pool2d with ceil_mode (the last partial window), avg_pool2d with
# count_include_pad=False and divisor_override: shapes, values, gradients and module reprs as PyTorch 2.13's.
import torch
import torch.nn as nn
import torch.nn.functional as F
x = torch.arange(35.).reshape(1, 1, 5, 7).requires_grad_()
for pool in [nn.MaxPool2d(2, ceil_mode=True), nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
             nn.AvgPool2d(2, ceil_mode=True), nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True),
             nn.AvgPool2d(3, stride=2, padding=1, count_include_pad=False),
             nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
             nn.AvgPool2d(2, divisor_override=3), nn.AvgPool2d((2, 3), stride=(1, 2), ceil_mode=True)]:
    y = pool(x)
    print(pool, y.shape, y.grad_fn.name())
    print(y[0, 0])
    (y * torch.arange(y.numel(), dtype=torch.float32).reshape(y.shape)).sum().backward()
    print(x.grad[0, 0])
    x.grad = None
print(F.max_pool2d(torch.randn(2, 3, 3), 2, ceil_mode=True).shape, F.avg_pool2d(torch.ones(1, 4, 4), 3, 3, ceil_mode=True))
