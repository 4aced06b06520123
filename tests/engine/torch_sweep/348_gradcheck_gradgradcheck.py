# torch.autograd.gradcheck / gradgradcheck: passing functions (several outputs, a non-tensor argument, a module),
# a custom Function with a wrong backward (GradcheckError's message), raise_exception=False, float32's warning.
import torch, warnings
torch.manual_seed(0)
x = torch.randn(3, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(lambda a: (a * a).sum(), (x,)))
print(torch.autograd.gradcheck(torch.sin, x))
print(torch.autograd.gradgradcheck(lambda a: a ** 3, (x,)))
print(torch.autograd.gradgradcheck(lambda a: torch.tanh(a) * a, x))
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, a):
        ctx.save_for_backward(a)
        return a * a
    @staticmethod
    def backward(ctx, g):
        a, = ctx.saved_tensors
        return g * a
try:
    torch.autograd.gradcheck(Bad.apply, (x,))
except RuntimeError as e:
    print(type(e).__name__, e)
print(torch.autograd.gradcheck(Bad.apply, (x,), raise_exception=False))
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    xf = torch.randn(3, requires_grad=True)
    print(torch.autograd.gradcheck(torch.sin, (xf,), eps=1e-3, atol=1e-2))
    print([str(m.message) for m in w])
try:
    torch.autograd.gradcheck(torch.sin, (torch.randn(3, dtype=torch.double),))
except ValueError as e:
    print(type(e).__name__, e)
y = torch.randn(2, 2, dtype=torch.double, requires_grad=True)
print(torch.autograd.gradcheck(lambda a, b: (a @ b, a.sum()), (y, y.detach().clone().requires_grad_())))
print(torch.autograd.gradcheck(lambda a, k: a * k, (x, 3.0)))
lin = torch.nn.Linear(3, 2).double()
print(torch.autograd.gradcheck(lambda a: torch.nn.functional.softmax(lin(a), dim=-1), (torch.randn(4, 3, dtype=torch.double, requires_grad=True),)))
torch.manual_seed(7)
print(torch.autograd.gradgradcheck(lambda a: (a ** 2).sin(), (torch.randn(4, dtype=torch.double, requires_grad=True),)))
print(torch.randn(3))     # gradgradcheck drew its grad_outputs from the global generator, as PyTorch does
