# The convolutions beyond plain conv2d: Conv1d, ConvTranspose1d/2d (output_padding, output_size), conv2d with
# dilation and groups (depthwise too), padding='same' with dilation; seeded initial weights, outputs, node
# names, gradients, reprs and PyTorch's errors; a tiny DCGAN-style generator step.
import torch
import torch.nn as nn
import torch.nn.functional as F
torch.manual_seed(0)
c1 = nn.Conv1d(3, 4, 3, stride=2, padding=1)
x1 = torch.randn(2, 3, 9, requires_grad=True)
y1 = c1(x1)
print(c1, y1.shape, y1.grad_fn.name())
print(y1[0, :2])
y1.pow(2).sum().backward()
print(x1.grad[0, 0], c1.weight.grad[0], c1.bias.grad)
print(F.conv1d(torch.randn(3, 7), torch.randn(2, 3, 2), dilation=3).shape, nn.Conv1d(2, 4, 3, groups=2, bias=False))
ct = nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, output_padding=1)
x2 = torch.randn(1, 4, 3, 3, requires_grad=True)
y2 = ct(x2)
print(ct, y2.shape, y2.grad_fn.name())
print(y2[0, 0])
(y2 * torch.arange(72.).reshape(1, 2, 6, 6)).sum().backward()
print(x2.grad[0, 1], ct.weight.grad[1, 0], ct.bias.grad)
print(ct(x2, output_size=[5, 5]).shape, nn.ConvTranspose2d(2, 4, (2, 3), groups=2, dilation=2, bias=False))
ct1 = nn.ConvTranspose1d(2, 3, 4, stride=3)
print(ct1, ct1(torch.randn(2, 5)).shape)
cd = nn.Conv2d(4, 6, 3, padding=2, dilation=2, groups=2)
x3 = torch.randn(2, 4, 7, 7, requires_grad=True)
y3 = cd(x3)
print(cd, y3.shape, y3.grad_fn.name(), y3[1, 5, 3])
y3.sum().backward()
print(x3.grad[0, 3, 2], cd.weight.grad.shape, cd.weight.grad[4, 1])
dw = nn.Conv2d(3, 3, 3, padding="same", groups=3, dilation=2)
print(dw, dw(torch.randn(1, 3, 6, 6)).shape)
for bad in [lambda: F.conv2d(torch.randn(1, 3, 5, 5), torch.randn(4, 2, 3, 3), groups=2),
            lambda: F.conv_transpose2d(torch.randn(1, 3, 5, 5), torch.randn(2, 4, 3, 3)),
            lambda: nn.Conv2d(3, 4, 3, groups=2)]:
    try:
        bad()
    except (RuntimeError, ValueError) as e:
        print(type(e).__name__, e)
gen = nn.Sequential(nn.ConvTranspose2d(8, 4, 4, 1, 0, bias=False), nn.BatchNorm2d(4), nn.ReLU(),
                    nn.ConvTranspose2d(4, 1, 4, 2, 1, bias=False), nn.Tanh())
opt = torch.optim.Adam(gen.parameters(), lr=0.01)
z = torch.randn(2, 8, 1, 1)
for step in range(3):
    img = gen(z)
    loss = (img - 0.5).pow(2).mean()
    opt.zero_grad()
    loss.backward()
    opt.step()
    print(step, img.shape, round(loss.item(), 5))
