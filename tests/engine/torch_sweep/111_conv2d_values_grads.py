# conv2d values and gradients on small fixed inputs: stride, padding, bias, several channels, nn.Conv2d.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.arange(1.0, 17.0).reshape(1, 1, 4, 4).requires_grad_()
k = torch.tensor([[[[1.0, 0.0], [0.0, -1.0]]]], requires_grad=True)
for stride, padding in [(1, 0), (2, 0), (1, 1), (2, 1), (3, 1)]:
    y = F.conv2d(x, k, stride=stride, padding=padding)
    print(stride, padding, y)
y = F.conv2d(x, k, stride=1, padding=1)
y.pow(2).sum().backward()
print(x.grad, k.grad)
conv = nn.Conv2d(2, 3, kernel_size=3, padding=1, stride=2)
with torch.no_grad():
    conv.weight.copy_(torch.linspace(-0.5, 0.5, 54).reshape(3, 2, 3, 3))
    conv.bias.copy_(torch.tensor([0.1, 0.0, -0.1]))
inp = torch.linspace(-1, 1, 2 * 2 * 5 * 5).reshape(2, 2, 5, 5)
out = conv(inp)
print(out.shape, out[1, 2], out.grad_fn)
out.mean().backward()
print(conv.bias.grad, conv.weight.grad[0, 1])
print(conv, conv.weight.shape, conv.bias.shape)
print(F.conv2d(torch.ones(1, 3, 3, 3), torch.ones(2, 3, 1, 1), torch.tensor([1.0, -1.0]))[0, :, 0])
