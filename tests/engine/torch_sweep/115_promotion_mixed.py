# dtype promotion in expressions a class writes: int64 with float32, float64 tensors, int scalars, reductions.
import torch

i = torch.tensor([[1, 2], [3, 4]])
f = torch.tensor([[0.5, 0.25], [2.0, -1.0]])
d = torch.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=torch.float64)
cases = {"i+f": i + f, "f*i": f * i, "i@i": i @ i, "f@f": f @ f, "d@d": d @ d, "i-1": i - 1, "i*0.5": i * 0.5,
         "d+f": d + f, "d*i": d * i, "i/i": i / i, "i.sum": i.sum(), "i.sum(0)": i.sum(0), "f.sum": f.sum(),
         "d.mean": d.mean(), "i.max": i.max(), "i.float().mean": i.float().mean(), "exp(i)": torch.exp(i),
         "sqrt(i)": torch.sqrt(i), "i.abs": (-i).abs(), "relu(i)": torch.relu(i - 2), "d.sigmoid": d.sigmoid(),
         "where": torch.where(i > 2, i, f), "maximum": torch.maximum(i, f), "cat": torch.cat([f, f.double()]),
         "clamp": i.clamp(min=2), "clampf": i.clamp(min=1.5), "pow": d ** 2, "2**i": 2 ** i, "i**-1.0": i ** -1.0,
         "neg": -i, "1-i/4": 1 - i / 4, "softmax": torch.softmax(d, 1), "argmax": f.argmax(1)}
for name, r in cases.items():
    print(name, r, r.dtype)
w = torch.tensor([0.5, 1.5], dtype=torch.float64, requires_grad=True)
y = (w * torch.tensor([2.0, 3.0])).sum()
y.backward()
print(y, w.grad, w.grad.dtype)
try:
    torch.tensor([1, 2], requires_grad=True)
except RuntimeError as e:
    print("RuntimeError:", e)
