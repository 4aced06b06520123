# Printing corner cases: float16 and float64 precision, huge ints, negative zero in sums, mixed nan rows, uint8 wrap.
import torch

print(torch.tensor([0.1, 0.2, 0.3], dtype=torch.float16), torch.tensor([65504.0], dtype=torch.float16))
print(torch.tensor([1 / 3], dtype=torch.float64), torch.tensor([1e-300, 1.0], dtype=torch.float64))
print(torch.tensor([2 ** 62, -(2 ** 62)]), torch.tensor([255], dtype=torch.uint8) + 1)
print(torch.tensor([[float('nan'), 1.5], [2.25, float('-inf')]]))
print(torch.tensor([-0.0, -0.0]), torch.tensor([[-0.0]]), -torch.zeros(2))
print(torch.tensor([1e-4, 1.0]), torch.tensor([9.9999e-5, 1.0]), torch.tensor([1000.0, 1.0]), torch.tensor([1001.0, 1.0]))
print(torch.tensor([1e8]), torch.tensor([1.00001e8]), torch.tensor([0.5, 1e8]), torch.tensor([100000000.5]))
print(torch.tensor([True, False, True]).sum(), torch.tensor([3, 4]).float().mean(), torch.tensor([[1]], dtype=torch.int16))
print(torch.tensor(float('inf')), torch.tensor(-float('nan')), torch.tensor([float('inf'), 1e-5]))
print(torch.arange(6).reshape(1, 2, 3, 1), torch.tensor([[[]]]), torch.ones(2, 3)[:, :0])
