# conv2d/max_pool2d/avg_pool2d with stride and padding through torch.nn.functional, with gradients.
import torch
import torch.nn.functional as F

x = torch.arange(2 * 2 * 5 * 5, dtype=torch.float32).reshape(2, 2, 5, 5).div(10).cos().requires_grad_()
w = torch.linspace(-1, 1, 3 * 2 * 3 * 3).reshape(3, 2, 3, 3).requires_grad_()
b = torch.tensor([0.1, 0.0, -0.1], requires_grad=True)
for stride, padding in [(1, 0), (2, 1), (1, 2), ((2, 1), (0, 1))]:
    y = F.conv2d(x, w, b, stride=stride, padding=padding)
    print(stride, padding, tuple(y.shape), round(y.sum().item(), 3))
y = F.conv2d(x, w, b, stride=2, padding=1)
print(y[0, 1])
print(y.grad_fn)
p = F.max_pool2d(y, 2, stride=1)
a = F.avg_pool2d(x, 3, stride=2, padding=1)
print(p[1, 2], p.grad_fn)
print(a[0, 0], a.grad_fn)
(p.sum() + a.pow(2).sum()).backward()
print(w.grad[0, 0], b.grad)
print(x.grad[1, 1])
print(F.adaptive_avg_pool2d(x, 1).flatten(1))
print(F.max_pool2d(torch.arange(16.0).reshape(1, 1, 4, 4), kernel_size=2))
print(F.conv2d(torch.ones(1, 1, 4, 4), torch.ones(1, 1, 3, 3), padding='same'))
