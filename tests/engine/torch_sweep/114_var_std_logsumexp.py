# var, std (unbiased, correction, dims, keepdim) and logsumexp, their values and gradients.
import torch

x = torch.tensor([[1.0, 4.0, 2.0, 8.0], [0.5, 0.5, -3.0, 1.0], [10.0, -10.0, 0.0, 5.0]], requires_grad=True)
print(x.var(), x.var(0), x.var(1, keepdim=True), x.var(dim=1, unbiased=False))
print(x.std(), x.std(dim=0, correction=0), x.std(dim=(0, 1)), torch.std(x, 1, True, keepdim=True))
print(torch.var(x, dim=-1, correction=2), torch.std(x, unbiased=False))
print(x.logsumexp(1), torch.logsumexp(x, dim=0, keepdim=True), x.logsumexp((0, 1)))
print(torch.logsumexp(torch.tensor([1000.0, 1000.0]), 0), torch.logsumexp(torch.tensor([-1000.0, -1001.0]), 0))
(x.var(1).sum() + x.std(0).sum() + x.logsumexp(1).sum()).backward()
print(x.grad)
print(x.var(1).grad_fn, x.std().grad_fn, x.logsumexp(1).grad_fn)
print(torch.tensor([3.0]).var(), torch.tensor([3.0]).std(unbiased=False), torch.tensor([2.0, 2.0]).std())
d = torch.tensor([[1.0, 2.0], [3.0, 5.0]], dtype=torch.float64)
print(d.var(), d.std(1), d.logsumexp(0))
mean = x.detach().mean(1, keepdim=True)
std = x.detach().std(1, keepdim=True)
print((x.detach() - mean) / std)
