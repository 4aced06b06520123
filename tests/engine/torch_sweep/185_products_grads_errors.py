# torch.dot/outer/ger/mv/addmm: values, gradients, grad_fn names and errors for wrong shapes and dtypes.
import torch
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
a = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
b = torch.tensor([4.0, -1.0, 0.5], requires_grad=True)
M = torch.tensor([[1.0, 0.0, 2.0], [0.5, -1.0, 1.0]], requires_grad=True)
d = torch.dot(a, b)
o = torch.outer(a, b)
v = torch.mv(M, a)
g = torch.ger(a, b)
am = torch.addmm(torch.ones(2), M, torch.eye(3)[:, :2] * 2)
print(d, o, v, g.shape, am, sep="\n")
(d + o.sum() + v.sum() + am.sum()).backward()
print(a.grad, b.grad, M.grad)
attempt("dot 2d", lambda: torch.dot(M, M))
attempt("dot size", lambda: torch.dot(a, torch.ones(2)))
attempt("dot dtype", lambda: torch.dot(torch.tensor([1, 2]), torch.tensor([1.0, 2.0])))
attempt("dot int", lambda: torch.dot(torch.tensor([1, 2]), torch.tensor([3, 4])))
attempt("mv bad", lambda: torch.mv(M, torch.ones(2)))
attempt("outer 2d", lambda: torch.outer(M, a).shape)
attempt("addmm bad", lambda: torch.addmm(torch.zeros(3), torch.ones(2, 3), torch.ones(3, 2)))
attempt("grad_fns", lambda: (d.grad_fn, o.grad_fn, v.grad_fn, am.grad_fn))
