# .item() and .tolist() return Python numbers; allclose, isclose and equal with tolerances.
import torch

f = torch.tensor(0.1)
print(f.item(), type(f.item()).__name__, torch.tensor(0.1, dtype=torch.float64).item())
print(torch.tensor(7).item(), type(torch.tensor(7).item()).__name__, torch.tensor(True).item(), torch.tensor([2.5]).item())
print(torch.tensor([[1.0, 2.5], [3.25, -4.0]]).tolist(), torch.tensor([1, 2]).tolist(), torch.tensor(3.5).tolist())
print(torch.tensor([True, False]).tolist(), torch.tensor([0.1, 0.2]).tolist(), torch.zeros(2, 0).tolist())
print(torch.arange(6).reshape(3, 2).tolist(), torch.tensor([1.0, 2.0], dtype=torch.float64).tolist())
w = torch.tensor(2.0, requires_grad=True)
print((w * 3).item(), round((w / 3).item(), 4), float(w * 2), int(torch.tensor(3.9)), bool(torch.tensor(0.0)))
try:
    torch.tensor([1.0, 2.0]).item()
except RuntimeError as e:
    print("RuntimeError:", e)
a = torch.tensor([1.0, 2.0, 3.0])
b = a + 1e-6
print(torch.allclose(a, b), torch.allclose(a, a + 1e-3), torch.allclose(a, a + 1e-3, atol=1e-2), torch.allclose(a, a * 1.01, rtol=0.02))
print(torch.isclose(a, torch.tensor([1.0, 2.1, 3.00001])), torch.equal(a, b), torch.equal(a, a.clone()))
print(torch.allclose(torch.tensor([float("nan")]), torch.tensor([float("nan")])), torch.allclose(torch.tensor([float("nan")]), torch.tensor([float("nan")]), equal_nan=True))
print(torch.allclose(torch.tensor([1.0, 2.0]), torch.tensor([1.0])), torch.allclose(a, b), torch.equal(a, a[:2]))
print(torch.tensor([1, 2]).eq(torch.tensor([1, 3])), (a == b).all().item(), (a - b).abs().max() < 1e-5)
