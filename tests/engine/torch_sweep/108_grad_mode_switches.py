# no_grad as a context and decorator, enable_grad inside it, set_grad_enabled as a function and a context.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)


@torch.no_grad()
def evaluate(t):
    return t * 2, torch.is_grad_enabled()


@torch.enable_grad()
def force(t):
    return t * 2


print(evaluate(x))
with torch.no_grad():
    print(torch.is_grad_enabled(), (x + 1).requires_grad, force(x).requires_grad)
    with torch.enable_grad():
        y = x * x
    print(y.requires_grad, y.grad_fn, (y * 2).requires_grad)
with torch.set_grad_enabled(False):
    print((x * 3).requires_grad, torch.is_grad_enabled())
print(torch.is_grad_enabled())
torch.set_grad_enabled(False)
z = x * 4
torch.set_grad_enabled(True)
print(z.requires_grad, (x * 4).requires_grad)
is_train = False
with torch.set_grad_enabled(is_train):
    out = x.pow(2).sum()
print(out, out.requires_grad)
with torch.no_grad():
    w = x.clone()
    w += 1
print(w, w.requires_grad, x)
y.sum().backward()
print(x.grad)
with torch.no_grad():
    x -= 0.1 * x.grad
print(x, x.requires_grad, x.grad_fn, x.is_leaf)
