# torch.Size behaves like a tuple: indexing, slicing, concatenation, numel, comparisons and printing.
import torch

x = torch.zeros(2, 3, 4)
s = x.shape
print(s, type(s).__name__, s[0], s[-1], s[1:], s[:0], len(s))
print(s + (5,), (1,) + s, s == (2, 3, 4), s == torch.Size([2, 3, 4]), s != [2, 3, 4], list(s), tuple(s))
print(s.numel(), torch.Size([]).numel(), torch.Size([]), torch.Size((0, 2)), torch.Size([7]))
n, c, l = s
print(n * c * l, x.size(), x.size(1), x.size(-1), x.size(dim=0), x.shape[2])
print(torch.zeros(s).shape, torch.ones(*s[1:]).shape, x.view(s[0], -1).shape, x.reshape(s[::-1]).shape)
print(torch.tensor(3.0).shape, torch.tensor([]).shape, torch.tensor(3.0).size(), torch.zeros(0, 5).shape)
print(f"shape={s}", str(s), repr(s), s.index(3), s.count(2), 4 in s, max(s), sum(s))
print(torch.Size([2, 3]) * 2, x.new_zeros(s[:2]).shape, torch.empty(torch.Size([1, 2])).shape)
print(x.flatten(1).shape, x.unsqueeze(-1).shape, x.permute(2, 0, 1).shape)
print(hash(s) == hash((2, 3, 4)), isinstance(s, tuple), torch.ones(s).sum())
