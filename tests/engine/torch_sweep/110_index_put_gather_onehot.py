# Index-put with tensors and masks, gather along each dim with gradients, one_hot and embedding lookups.
import torch
import torch.nn as nn
import torch.nn.functional as F

a = torch.zeros(3, 4)
a[torch.tensor([0, 2]), torch.tensor([1, 3])] = torch.tensor([5.0, 6.0])
a[1, [0, 2]] = 9.0
a[:, 0] += 1
a[a == 0] = -1.0
print(a)
b = torch.arange(10)
b[b % 3 == 0] = torch.tensor([100, 200, 300, 400])
b[-2:] = 0
print(b)
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
idx = torch.tensor([[2, 0, 0], [1, 1, 2]])
g1 = x.gather(1, idx)
g0 = torch.gather(x, 0, torch.tensor([[1, 0, 1]]))
(g1 * torch.tensor([1.0, 2.0, 3.0])).sum().backward(retain_graph=True)
print(g1, x.grad)
x.grad = None
g0.sum().backward()
print(g0, x.grad)
labels = torch.tensor([0, 2, 1, 2])
oh = F.one_hot(labels)
print(oh, oh.dtype, F.one_hot(labels, num_classes=5).shape, F.one_hot(torch.tensor(1), 3))
print(F.one_hot(torch.tensor([[0, 1], [1, 0]])), oh.float().sum(0))
emb = nn.Embedding(4, 2)
with torch.no_grad():
    emb.weight.copy_(torch.tensor([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0]]))
tokens = torch.tensor([[1, 3, 1], [0, 0, 2]])
out = emb(tokens)
print(out, out.shape, out.grad_fn)
out.sum().backward()
print(emb.weight.grad)
w = torch.tensor([[1.0, 0.5], [-1.0, 2.0], [0.0, 3.0]], requires_grad=True)
e = F.embedding(torch.tensor([2, 2, 0]), w)
(e ** 2).sum().backward()
print(e, w.grad)
print(x.detach()[torch.tensor([True, False])], x.detach()[:, torch.tensor([False, True, True])])
