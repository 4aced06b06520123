# einsum, tril/triu, where with scalars, masked_fill, one_hot, argsort, chunk, cat of mixed dtypes.
import torch
import torch.nn.functional as F

a = torch.arange(6.0).reshape(2, 3)
b = torch.arange(12.0).reshape(3, 4)
print(torch.einsum("ij,jk->ik", a, b), torch.einsum("ij->j", a))
print(torch.einsum("bi,bi->b", a, a), torch.einsum("i,j->ij", a[0], a[1]))
print(torch.tril(torch.ones(3, 3)), torch.triu(torch.ones(3, 3), diagonal=1))
mask = torch.triu(torch.ones(3, 3, dtype=torch.bool), diagonal=1)
scores = torch.arange(9.0).reshape(3, 3)
print(scores.masked_fill(mask, float('-inf')).softmax(dim=-1))
print(torch.where(scores > 4, 1.0, 0.0), torch.where(scores > 4))
print(F.one_hot(torch.tensor([0, 2, 1]), 3), torch.tensor([3, 1, 2, 1]).argsort())
print(torch.cat([torch.tensor([1, 2]), torch.tensor([0.5])]), torch.stack([torch.tensor(1), torch.tensor(2)]))
x = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
torch.einsum("ij,ij->", x, x).backward()
print(x.grad)
c = torch.tensor([[True, False], [False, True]])
print(torch.where(c), torch.nonzero(c, as_tuple=True), torch.nonzero(c), torch.where(torch.tensor([0.0, 2.0])))
print(torch.where(torch.tensor(True)), torch.nonzero(torch.tensor(3), as_tuple=True))
