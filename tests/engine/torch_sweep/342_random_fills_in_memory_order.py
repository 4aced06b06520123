# In-place random fills and dropout visit a tensor in memory order, as PyTorch's kernels do: a
# transposed or permuted tensor gets its draws in its layout's order (and normal values one at a time
# when it is not contiguous), so seeded programs print the same numbers.
import torch
import torch.nn.functional as F

torch.manual_seed(0)
a = torch.empty(3, 4).t()
a.uniform_(-1, 1)
print(a)
b = torch.empty(2, 5).t().normal_()
print(b)
c = torch.empty(4, 6)[:, ::2].uniform_()
print(c)
d = torch.empty(2, 3, 4).permute(2, 0, 1).normal_(0, 2)
print(d)
print(F.dropout(torch.ones(3, 4).t(), 0.5))
