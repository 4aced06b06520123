# Vector-Jacobian products: y.backward(v) on a non-scalar output, accumulation, zero_.
import torch

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
y = x * 2
i = 0
while y.data.norm() < 1000:
    y = y * 2
    i += 1
print(y, i)
v = torch.tensor([0.1, 1.0, 0.0001], dtype=torch.float)
y.backward(v)
print(x.grad)

w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
for _ in range(3):
    (w * w).sum().backward()
print(w.grad)
w.grad.zero_()
print(w.grad)
out = (w.exp() * torch.tensor([1.0, -1.0])).sum(dim=1)
out.backward(torch.ones_like(out))
print(w.grad)
try:
    (w * 2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
