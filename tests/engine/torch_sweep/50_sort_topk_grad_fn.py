# The values of sort and topk come from SortBackward0 and TopkBackward0.
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]], requires_grad=True)
print(x.sort(dim=1).values.grad_fn, x.topk(2).values.grad_fn, torch.sort(x, descending=True)[0].grad_fn)
