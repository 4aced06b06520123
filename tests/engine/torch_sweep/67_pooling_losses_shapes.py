# Pooling with padding and adaptive windows; losses over spatial dims; BCE weights; clip norms.
import torch
import torch.nn as nn
import torch.nn.functional as F

x = torch.arange(2 * 6 * 6, dtype=torch.float32).reshape(1, 2, 6, 6).sin().requires_grad_()
print(F.adaptive_avg_pool2d(x, 3)[0, 1], F.adaptive_avg_pool2d(x, (2, 1)).shape)
print(nn.MaxPool2d(2, padding=1)(x)[0, 0], nn.AvgPool2d(3, stride=2, padding=1)(x)[0, 0])
F.adaptive_avg_pool2d(x, 3).sum().backward()
print(x.grad[0, 0])
logits = torch.linspace(-2, 2, 2 * 3 * 2 * 2).reshape(2, 3, 2, 2).requires_grad_()
target = torch.tensor([[[0, 1], [2, 1]], [[1, 1], [0, 2]]])
loss = F.cross_entropy(logits, target)
print(loss, F.cross_entropy(logits, target, reduction='none'))
print(F.nll_loss(F.log_softmax(logits, 1), target, reduction='sum'))
loss.backward()
print(logits.grad[0, :, 0, 0])
p = torch.tensor([0.2, 0.7, 0.9])
t = torch.tensor([0.0, 1.0, 1.0])
print(F.binary_cross_entropy(p, t, weight=torch.tensor([1.0, 2.0, 0.5])),
      F.binary_cross_entropy_with_logits(torch.tensor([0.5, -1.0, 2.0]), t, weight=torch.tensor([1.0, 2.0, 0.5])))
w = nn.Parameter(torch.tensor([3.0, -4.0]))
w.grad = torch.tensor([3.0, -4.0])
print(torch.nn.utils.clip_grad_norm_([w], max_norm=1.0, norm_type=float('inf')), w.grad)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
