# torch.<function>(..., out=t) as the tensor tutorial uses it (torch.mul(tensor, tensor, out=z3)): the result
# written into t and t returned, pointwise ops casting into a wider out, sum/cumsum computing in out's dtype,
# products and argmax wanting out's dtype exactly, cat/stack, the resize warning, and the refusals.
import torch
import warnings
warnings.simplefilter("always")
a = torch.tensor([[1.0, 2.0], [3.0, 4.0]])
z = torch.rand_like(a)
r = torch.mul(a, a, out=z)
print(r is z, z, z._version)
print(torch.add(a, 1, out=torch.empty(2, 2)), torch.sub(a, a, alpha=2, out=torch.empty(2, 2)))
print(torch.div(a, 2, out=torch.empty(2, 2, dtype=torch.float64)))
print(torch.exp(a, out=torch.empty(0)), torch.sqrt(a, out=torch.empty(2, 2)))
print(torch.mul(torch.tensor([2, 3]), 4, out=torch.zeros(2)))
print(torch.gt(a, 2, out=torch.empty(2, 2)), torch.eq(a, 1, out=torch.empty(2, 2, dtype=torch.bool)))
print(torch.sum(a, 0, out=torch.empty(2)), torch.sum(a, 1, out=torch.empty(2, dtype=torch.float64)))
print(torch.mean(a, 1, out=torch.empty(2)), torch.prod(a, 0, out=torch.empty(2)))
print(torch.cumsum(torch.tensor([1, 2, 3]), 0, out=torch.empty(3, dtype=torch.long)))
print(torch.cumsum(a, 1, out=torch.empty(2, 2, dtype=torch.float64)))
print(torch.argmax(a, 1, out=torch.empty(2, dtype=torch.long)))
print(torch.mm(a, a, out=torch.empty(2, 2)), torch.dot(a[0], a[1], out=torch.empty(())))
print(torch.cat([a, a], out=torch.empty(4, 2)), torch.stack([a, a], 1, out=torch.empty(2, 2, 2)).shape)
print(torch.cat([a, a], 1, out=torch.empty(2, 4, dtype=torch.float64)))
w = torch.ones(3)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    torch.mul(a, a, out=w)
print(w, w.shape, len(caught), str(caught[0].message)[:60])
t = torch.zeros(2, 2)
view = t[0]
torch.add(a[0], 10, out=view)
print(t)
for bad in (lambda: torch.mul(a, a, out=torch.empty(2, 2, dtype=torch.long)),
            lambda: torch.exp(a, out=torch.empty(2, 2, dtype=torch.bool)),
            lambda: torch.mm(a, a, out=torch.empty(2, 2, dtype=torch.float64)),
            lambda: torch.argmax(a, 1, out=torch.empty(2)),
            lambda: torch.cat([a, a], out=torch.empty(4, 2, dtype=torch.long)),
            lambda: torch.mul(a.requires_grad_(), a, out=torch.empty(2, 2)),
            lambda: torch.sum(a, 0, out=torch.empty(2))):
    try:
        print(bad())
    except (RuntimeError, TypeError) as e:
        print(type(e).__name__, e)
with torch.no_grad():
    print(torch.mul(a, a, out=torch.empty(2, 2)))
