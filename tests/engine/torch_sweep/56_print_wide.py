# Line wrapping and summarization of wide and high-dimensional tensors.
import torch

print(torch.linspace(-100, 100, 25))
print(torch.arange(30) * 1000)
print(torch.arange(60.0).reshape(2, 30) / 3)
print(torch.arange(2 * 3 * 400).reshape(2, 3, 400))
print(torch.arange(24.0).reshape(2, 3, 4) - 12)
print(torch.arange(4000).reshape(10, 20, 20)[..., :2])
print(torch.ones(1, 1, 1, 2), torch.zeros(2, 1, 3, dtype=torch.bool))
print(torch.tensor([[1e-5, 1.0], [2.0, 3.0]], requires_grad=True) * 2)
print(torch.full((3, 30), -0.5, requires_grad=True))
