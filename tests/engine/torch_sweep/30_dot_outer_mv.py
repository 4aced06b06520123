# Vector products: torch.dot, torch.outer (torch.ger), torch.mv, with gradients and integer inputs.
import torch

a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, -5.0, 6.0], requires_grad=True)
d = torch.dot(a, b)
print(d)
o = torch.outer(a, b)
print(o)
M = torch.arange(6.0).reshape(2, 3)
mv = torch.mv(M, a)
print(mv)
(d + o.sum() + mv.sum()).backward()
print(a.grad, b.grad)
print(torch.dot(torch.tensor([1, 2, 3]), torch.tensor([1, 1, 1])), torch.ger(torch.tensor([1.0, 2.0]), torch.tensor([3.0])))
print(torch.outer(torch.arange(3), torch.arange(2)), torch.outer(torch.arange(2), torch.ones(2)).dtype)
for bad in [lambda: torch.dot(torch.ones(2), torch.ones(3)), lambda: torch.dot(torch.ones(2, 2), torch.ones(2)),
            lambda: torch.dot(torch.ones(2), torch.ones(2, dtype=torch.float64)),
            lambda: torch.mv(torch.ones(2, 3), torch.ones(2)), lambda: torch.mv(torch.ones(2), torch.ones(2)),
            lambda: torch.mv(torch.ones(2, 3), torch.ones(3, dtype=torch.int64)),
            lambda: torch.outer(torch.ones(2, 2), torch.ones(2)), lambda: torch.outer(torch.ones(2), torch.ones(2, 2))]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
