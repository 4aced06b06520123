# torch.manual_seed makes rand/randn/randint/randperm/normal and Tensor.uniform_/normal_ draw PyTorch's own numbers
# (float32 and float64, separate Generator objects, a normal cached between calls).
import torch
torch.manual_seed(0)
print(torch.rand(3), torch.randn(3), torch.randn(2, 10), torch.randint(0, 100, (5,)), torch.randperm(6))
print(torch.rand(2, dtype=torch.float64), torch.randn(3, dtype=torch.float64), torch.randn(17, dtype=torch.float64)[-3:])
print(torch.normal(2.0, 0.5, size=(4,)), torch.normal(torch.zeros(3), torch.ones(3) * 2))
print(torch.rand_like(torch.zeros(2, 2)), torch.randn_like(torch.zeros(5)), torch.randint_like(torch.zeros(3), 10))
g = torch.Generator().manual_seed(123)
print(torch.rand(3, generator=g), torch.randn(4, generator=g), torch.randint(5, (3,), generator=g))
print(torch.initial_seed(), g.initial_seed())
torch.manual_seed(42)
x = torch.randn(100)
print(x.mean(), x.std(), x[:5])
torch.manual_seed(1)
print(torch.empty(3).uniform_(-1, 1), torch.empty(20).normal_(3, 2)[:4], torch.empty(4).normal_())
print(torch.randint(0, 2 ** 40, (2,)), torch.randint(-5, 5, (2, 3)))
