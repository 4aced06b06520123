# max_pool2d and avg_pool2d values and gradients with kernel, stride and padding; ties in max pooling.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.tensor([[[[1.0, 3.0, 2.0, 0.0, 5.0],
                    [4.0, -1.0, 6.0, 2.0, 1.0],
                    [0.5, 2.5, 2.5, 7.0, -3.0],
                    [1.0, 1.0, 8.0, 0.0, 2.0],
                    [9.0, 0.0, 1.0, 1.0, 1.0]]]], requires_grad=True)
for kernel, stride, padding in [(2, 2, 0), (2, 1, 0), (3, 2, 1), (3, 1, 1)]:
    m = F.max_pool2d(x, kernel, stride, padding)
    a = F.avg_pool2d(x, kernel, stride, padding)
    print(kernel, stride, padding, m, a, sep="\n")
m = nn.MaxPool2d(2)(x)
m.sum().backward()
print(x.grad)
x.grad = None
nn.AvgPool2d(3, stride=2, padding=1)(x).sum().backward()
print(x.grad)
x.grad = None
F.max_pool2d(x, 3, stride=1).sum().backward()
print(x.grad)
ties = torch.ones(1, 1, 2, 2, requires_grad=True)
F.max_pool2d(ties, 2).backward()
print(ties.grad)
print(nn.MaxPool2d(2), nn.AvgPool2d(kernel_size=3, stride=2, padding=1), nn.MaxPool2d((2, 3), stride=(1, 2)))
print(F.max_pool2d(torch.arange(24.0).reshape(2, 3, 4), 2).shape)
