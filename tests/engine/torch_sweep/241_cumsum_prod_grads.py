# Running sums and products: dims, dtypes, and gradients that stay exact where the input has zeros.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
c = torch.cumsum(x, dim=1)
print(c, x.cumsum(0), x.cumsum(-1, dtype=torch.float64))
(c * torch.tensor([1.0, 10.0, 100.0])).sum().backward()
print(x.grad)
print(torch.tensor([1, 2, 3], dtype=torch.int32).cumsum(0), torch.tensor([True, False, True]).cumsum(0))
print(torch.tensor(4.0).cumsum(0), torch.ones(2, 0).cumsum(1).shape)
counts = torch.tensor([3, 1, 2])
print("offsets", torch.cat([torch.zeros(1, dtype=torch.long), counts.cumsum(0)[:-1]]))

for values in ([2.0, 3.0, 4.0], [2.0, 0.0, 4.0], [0.0, 3.0, 0.0]):
    v = torch.tensor(values, requires_grad=True)
    p = v.prod()
    p.backward()
    print(values, p, v.grad)

m = torch.tensor([[1.5, 0.0, 2.0], [0.5, -2.0, 4.0], [0.0, 0.0, 3.0]], requires_grad=True)
rows = torch.prod(m, 1)
cols = m.prod(dim=0, keepdim=True)
(rows.sum() + (cols * torch.tensor([[1.0, 2.0, 3.0]])).sum()).backward()
print(rows, cols, m.grad, sep="\n")
print(torch.prod(torch.tensor([[1, 2], [3, 4]])), torch.tensor([True, True]).prod(), torch.ones(0).prod())
print(m.prod(-1, dtype=torch.float64))
print(torch.tensor(2.5, requires_grad=True).prod())
g = torch.tensor([0.5, 2.0, 3.0], requires_grad=True)
(dg,) = torch.autograd.grad(g.prod(), g, create_graph=True)
print(dg)
dg.sum().backward()
print(g.grad)
for bad in ("torch.cumsum(x)", "x.cumsum(2)"):
    try:
        eval(bad)
    except (TypeError, IndexError) as e:
        print(type(e).__name__, e)
