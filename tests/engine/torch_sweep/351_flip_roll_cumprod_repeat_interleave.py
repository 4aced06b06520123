# torch.flip/fliplr/flipud, roll, cumprod (zeros included: its gradient stays exact), repeat_interleave (a number,
# a tensor of counts, the counts alone), dot/outer/mv as functions and methods, matmul(..., out=): values,
# grad_fn names, gradients, strides and errors as PyTorch 2.13 prints them.
import torch
import warnings
x = torch.arange(24.).reshape(2, 3, 4).requires_grad_()
f = torch.flip(x, [0, 2])
print(f, f.grad_fn.name(), f.is_contiguous(), f.stride())
print(x.flip(1)[0], x.flip(0, 1)[1, 0], x.flip([2])[0, 0], x[0].fliplr(), torch.flipud(x[0]))
(f * torch.arange(24.).reshape(2, 3, 4)).sum().backward()
print(x.grad[1])
try:
    torch.flip(x, (0, 0))
except RuntimeError as e:
    print(e)
y = torch.arange(10).reshape(2, 5)
print(torch.roll(y, 1), torch.roll(y, -1, 1), torch.roll(y, (1, 2), (0, 1)), y.roll(7, dims=1))
try:
    torch.roll(y, (1, 2))
except RuntimeError as e:
    print(e)
w = torch.tensor([[1.5, 0.0, -2.0, 0.7], [0.5, 2.0, 1.2, 3.0]], requires_grad=True)
c = torch.cumprod(w, 1)
print(c, c.grad_fn.name())
c.sum().backward()
print(w.grad)
print(torch.cumprod(torch.tensor([1, 2, 3, 4]), 0), torch.tensor([1, 2, 3]).cumprod(0).dtype,
      torch.cumprod(torch.tensor([1.0, 2.0]), 0, dtype=torch.float64))
z = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
r = torch.repeat_interleave(z, 2)
print(r, r.grad_fn.name())
r2 = z.repeat_interleave(3, dim=0)
print(r2, r2.grad_fn.name())
r3 = torch.repeat_interleave(z, torch.tensor([1, 2]), dim=1)
print(r3, r3.grad_fn.name())
(r.sum() + (r2 * 2).sum() + (r3 * 3).sum()).backward()
print(z.grad)
print(torch.repeat_interleave(torch.tensor([2, 0, 1])), torch.repeat_interleave(torch.tensor([1, 2, 3]), 2))
print(z.repeat_interleave(torch.tensor(2), dim=1))
for bad in [lambda: torch.repeat_interleave(z, -1), lambda: torch.repeat_interleave(z, torch.tensor([1, 2, 3]), dim=0)]:
    try:
        bad()
    except RuntimeError as e:
        print(e)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, -1.0, 0.5])
print(torch.dot(a, b), a.dot(b), torch.outer(a, b), a.outer(b).grad_fn.name(), torch.mv(torch.ones(2, 3), b),
      torch.ones(2, 3).mv(b))
try:
    torch.dot(a, torch.tensor([1, 2, 3]))
except RuntimeError as e:
    print(e)
o = torch.empty(2, 2)
res = torch.matmul(torch.ones(2, 3), torch.ones(3, 2), out=o)
print(res is o, o)
with warnings.catch_warnings(record=True) as caught:
    warnings.simplefilter("always")
    o2 = torch.zeros(3)
    torch.matmul(torch.ones(2, 3), torch.ones(3, 2), out=o2)
    print(o2, len(caught))
try:
    torch.matmul(a.reshape(1, 3), torch.ones(3, 2), out=torch.empty(1, 2))
except RuntimeError as e:
    print(e)
try:
    torch.matmul(torch.ones(2, 3), torch.ones(3, 2), out=torch.empty(2, 2, dtype=torch.float64))
except RuntimeError as e:
    print(e)
