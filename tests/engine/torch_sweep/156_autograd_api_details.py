# Autograd API details: backward with a gradient argument, autograd.grad with lists of outputs and grad_outputs,
# allow_unused/materialize_grads, leaves and grad_fns, hooks on leaves, converting tensors that require grad.
import torch
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
attempt("nonleaf requires_grad_ false", lambda: (x * 2).requires_grad_(False))
attempt("leaf int requires_grad_", lambda: torch.tensor([1, 2]).requires_grad_())
attempt("grad of nonleaf", lambda: (x * 2).grad)
y = x * x
attempt("backward grad arg", lambda: (y.backward(torch.tensor([1.0, 0.1, 0.01])), x.grad)[1])
x.grad = None
attempt("backward gradient kw", lambda: ((x ** 2).sum().backward(gradient=torch.tensor(2.0)), x.grad)[1])
x.grad = None
x.grad = None
attempt("grad outputs list", lambda: torch.autograd.grad([x.sum(), (x * x).sum()], [x], grad_outputs=[torch.tensor(1.0), torch.tensor(2.0)]))
attempt("grad outputs none", lambda: torch.autograd.grad([(x * 2).sum()], x, grad_outputs=[None]))
attempt("grad leaf not input", lambda: torch.autograd.grad((x * 2).sum(), x, retain_graph=False, create_graph=False))
attempt("grad on detached", lambda: torch.autograd.grad(x.detach().sum(), x))
attempt("grad materialize", lambda: torch.autograd.grad((x * 2).sum(), [x, torch.ones(1, requires_grad=True)], allow_unused=True, materialize_grads=True))
attempt("backward on leaf", lambda: (x.sum().backward(), x.grad)[1])
x.grad = None
attempt("is_leaf various", lambda: (x.is_leaf, x.detach().is_leaf, (x * 2).is_leaf, torch.ones(2).is_leaf, (torch.ones(2) * 2).is_leaf))
attempt("grad_fn of detach", lambda: (x.detach().grad_fn, x.clone().grad_fn, x.data.grad_fn))
attempt("requires_grad of ops with no_grad leaf", lambda: (torch.ones(2) + x[:2]).requires_grad)
attempt("retain_grad leaf", lambda: (x.retain_grad(), x.retains_grad)[1])
x.grad = None
attempt("hook on leaf modifies", lambda: (x.register_hook(lambda g: g * 0), (x * 5).sum().backward(), x.grad)[2])
w = torch.tensor(3.0, requires_grad=True)
out = w * w
out.backward(retain_graph=True)
g1 = w.grad.clone()
out.backward()
attempt("double backward accum", lambda: (g1, w.grad))
attempt("numpy of grad", lambda: w.grad.numpy())
attempt("item of requires grad", lambda: (w * 2).item())
attempt("tolist requires grad", lambda: (x * 2).tolist())
attempt("float()", lambda: float(w * 2))
attempt("bool nonscalar", lambda: bool(x))
attempt("len 0d", lambda: len(w))
attempt("iter 0d", lambda: list(w))
attempt("index 0d", lambda: w[0])
