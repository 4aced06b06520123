# Indexing and slicing: basic slices, integer tensors, boolean masks, index_put, gradients through them.
import torch

a = torch.arange(24).reshape(4, 6)
print(a[1], a[:, 2], a[1:3, ::2], a[-1, -2:], a[..., 0])
print(a[[0, 2, 3]], a[[0, 1], [1, 2]], a[torch.tensor([[0], [3]]), torch.tensor([1, 4])])
print(a[a % 5 == 0])
print(a[None, 1, :2].shape, a[:, None].shape)
mask = a > 18
print(mask)
b = a.clone()
b[mask] = -1
b[0, :3] = torch.tensor([100, 200, 300])
b[1] = 7
print(b)
x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
y = x[:, [0, 2, 0]] * torch.tensor([1.0, 2.0, 3.0])
y.sum().backward()
print(y, x.grad)
x.grad = None
z = x[x > 2.5]
print(z)
(z ** 2).sum().backward()
print(x.grad)
print(a[2, 3], a[2, 3].item(), type(a[2, 3].item()).__name__)
print(a.masked_fill(a < 10, 0)[:2])
print(torch.where(a > 12, a, -a)[2:])
print(a.gather(1, torch.tensor([[0, 1], [5, 4], [2, 2], [3, 0]])))
print(a.index_select(0, torch.tensor([3, 0])))
print(a[:, 1:4].T.reshape(-1))
