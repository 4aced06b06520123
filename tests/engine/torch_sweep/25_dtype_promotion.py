# dtype promotion: int with float, int division, bool arithmetic, float64 with float32, scalars.
import torch

i = torch.tensor([1, 2, 3])
f = torch.tensor([0.5, 1.5, 2.5])
d = torch.tensor([1.0, 2.0, 3.0], dtype=torch.float64)
b = torch.tensor([True, False, True])
for r in [i + f, i / 2, i / i, i // 2, i * 2, i * 2.0, f + d, i + d, b + b, b * 2, b + 0.5, i + True,
          torch.tensor(3) / 2, torch.tensor(7) % 3, torch.tensor(-7) % 3, i ** 2, i ** 0.5, f.long(), i.float(),
          d.float(), f.to(torch.float64), f.int(), torch.tensor([2.7, -2.7]).long(), i.bool(), i > 1, i.sum() / 3,
          torch.tensor(2.0) * i]:
    print(r, r.dtype)
print(torch.tensor([1, 2]).to(torch.float32) / 3)
print(torch.arange(5).dtype, torch.arange(5.0).dtype, torch.arange(0, 1, 0.5).dtype, torch.linspace(0, 1, 3).dtype)
print(torch.zeros(2).dtype, torch.zeros(2, dtype=torch.int64), torch.tensor(1 << 40), torch.tensor([1.0]).type(torch.int64))
try:
    torch.tensor([1, 2]).mean()
except RuntimeError as e:
    print("RuntimeError:", e)
