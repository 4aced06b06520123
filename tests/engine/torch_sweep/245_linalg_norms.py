# torch.linalg.vector_norm / norm / matrix_norm: every ord, dims, keepdim, and the gradients (0 at a zero vector).
import torch

x = torch.tensor([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]], requires_grad=True)
for ord in (2, 1, 3, 0.5, 0, float("inf"), float("-inf")):
    print(ord, torch.linalg.vector_norm(x, ord=ord), torch.linalg.vector_norm(x, ord=ord, dim=1))
n = torch.linalg.vector_norm(x, dim=-1, keepdim=True)
print(n)
(x / n).sum().backward()
print(x.grad)

z = torch.zeros(3, requires_grad=True)
torch.linalg.vector_norm(z).backward()
print(z.grad)

m = torch.tensor([[1.0, -2.0], [3.0, 4.0]], requires_grad=True)
print(torch.linalg.norm(m), torch.linalg.norm(m, "fro"), torch.linalg.norm(m, 1), torch.linalg.norm(m, float("inf")))
print(torch.linalg.norm(m, -1), torch.linalg.norm(m, dim=0), torch.linalg.norm(m[0], ord=1))
print(torch.linalg.matrix_norm(m), torch.linalg.matrix_norm(m, ord=1, keepdim=True))
torch.linalg.norm(m, 1).backward()
print(m.grad)
v = torch.tensor([0.5, -1.5, 2.0], dtype=torch.float64, requires_grad=True)
torch.linalg.norm(v, ord=3).backward()
print(v.grad, torch.linalg.vector_norm(v, dtype=torch.float64))
for bad in ("torch.linalg.vector_norm(torch.tensor([1, 2]))", "torch.linalg.norm(torch.ones(2, 2, 2), ord=2)"):
    try:
        eval(bad)
    except RuntimeError as e:
        print("RuntimeError", e)
