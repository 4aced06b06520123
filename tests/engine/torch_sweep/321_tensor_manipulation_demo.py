# Tensor manipulation a first lesson shows: view vs reshape on a transposed tensor, contiguous, chunk/split,
# expand, gather, where, masked selection, argmax with keepdim, topk and sort.
import torch

torch.manual_seed(0)
a = torch.arange(12).reshape(3, 4)
print(a)
t = a.t()
print(t.is_contiguous(), t.shape)
try:
    t.view(12)
except RuntimeError as e:
    print("RuntimeError:", e)
print(t.reshape(12), t.contiguous().view(2, 6))
print(a.view(-1, 6), a.flatten(), a.unsqueeze(0).shape, a[None, :, None].shape)
print(a.chunk(2, dim=1))
print(a.split([1, 2], dim=0))
col = torch.tensor([[1], [2], [3]])
print(col.expand(3, 4), col.expand(-1, 2).shape)
idx = torch.tensor([[0, 3], [1, 1], [2, 0]])
print(a.gather(1, idx))
print(torch.where(a > 5, a, -a))
print(a[a % 2 == 0], a[:, [0, 2]], a[[0, 2], [1, 3]])
x = torch.randn(3, 5)
print(x.argmax(dim=1), x.argmax(dim=1, keepdim=True), x.argmax())
vals, inds = x.topk(2, dim=1)
print(vals, inds)
s, order = x[0].sort(descending=True)
print(s, order)
print(torch.stack([a, a], dim=0).shape, torch.cat([a, a], dim=1).shape)
print(a.sum(), a.sum(0), a.float().mean(1), a.max(), a.max(dim=0))
print(a.permute(1, 0).shape, a.T.shape, a.transpose(0, 1).contiguous().is_contiguous())
