# Tensor creation: zeros/ones/full/arange/linspace/eye/*_like with dtypes, from_numpy and tensor from lists.
import numpy as np
import torch

print(torch.zeros(2, 3, dtype=torch.int64), torch.ones((2,), dtype=torch.float64), torch.full((2, 2), -1.5))
print(torch.full((3,), 2, dtype=torch.float32), torch.full((2,), True), torch.full((1, 2), 7).dtype)
print(torch.arange(5), torch.arange(2, 8, 2), torch.arange(1.0, 2.0, 0.3), torch.arange(5, dtype=torch.float64))
print(torch.arange(10, 0, -3), torch.arange(0.0, 1.0, 0.1).shape, torch.arange(-2.5, 2.5))
print(torch.linspace(-1, 1, 5), torch.linspace(0, 10, 1), torch.linspace(2, 3, 4, dtype=torch.float64))
print(torch.eye(2), torch.eye(2, 3), torch.eye(3, dtype=torch.int64))
t = torch.tensor([[1, 2], [3, 4]])
print(torch.zeros_like(t), torch.ones_like(t, dtype=torch.float32), torch.full_like(t, 9), torch.full_like(t.float(), 0.5))
print(torch.empty(2, 3).shape, torch.rand(2, 2).dtype, torch.randn(3).shape, torch.randint(0, 5, (4,)).dtype)
print(torch.rand_like(t.float()).shape, torch.randn_like(t.double()).dtype, torch.randint(3, 4, (2, 2)))
n = np.array([1, 2, 3])
print(torch.from_numpy(n), torch.from_numpy(np.array([1.5, 2.5])), torch.from_numpy(np.ones((2, 2), dtype=np.float32)))
print(torch.tensor([[1, 2.5], [3, 4]]), torch.tensor([True, 1]), torch.tensor([1, 2], dtype=torch.float32), torch.tensor(np.float64(2.5)))
print(torch.tensor([[]]).shape, torch.tensor([torch.tensor(1.0), torch.tensor(2.0)]), torch.tensor(5, dtype=torch.float64))
r = torch.rand(1000)
print(bool((r >= 0).all() and (r < 1).all()), torch.randint(10, (3, 2)).shape, torch.randint(2, 3, (3,)))
print(torch.zeros(3).requires_grad, torch.ones(2, requires_grad=True), torch.tensor([1.0], requires_grad=True).is_leaf)
