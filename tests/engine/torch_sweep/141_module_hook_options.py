# Module hook options: pre-hooks returning one tensor or None, with_kwargs forward and pre hooks, prepend, handles,
# full backward hooks and pre-hooks (with and without an input that needs a gradient), a hook replacing grad_input.
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
lin = nn.Linear(2, 2)
with torch.no_grad():
    lin.weight.copy_(torch.eye(2)); lin.bias.zero_()
x = torch.tensor([[1.0, 2.0]])
h1 = lin.register_forward_pre_hook(lambda m, inp: inp[0] * 3)
attempt("pre single", lambda: lin(x))
h1.remove()
h2 = lin.register_forward_pre_hook(lambda m, inp: None)
attempt("pre none", lambda: lin(x))
h2.remove()
h3 = lin.register_forward_hook(lambda m, inp, out: None)
attempt("post none", lambda: lin(x))
h3.remove()
h4 = lin.register_forward_hook(lambda m, args, kwargs, out: out + 1, with_kwargs=True)
attempt("with kwargs", lambda: lin(x))
h4.remove()
order = []
lin.register_forward_hook(lambda m, i, o: order.append("a"))
lin.register_forward_hook(lambda m, i, o: order.append("b"), prepend=True)
lin(x)
attempt("prepend", lambda: order)
attempt("handle id type", lambda: type(h1).__name__)
attempt("remove twice", lambda: (h1.remove(), h1.remove()))
attempt("hooks dict", lambda: len(lin._forward_hooks))
with h1:
    pass
attempt("handle ctx", lambda: "ok")
class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(2, 2)
    def forward(self, x, scale=1.0):
        return self.a(x) * scale
n = Net()
seen = []
n.register_forward_pre_hook(lambda m, args, kwargs: seen.append((len(args), sorted(kwargs))), with_kwargs=True)
n(x, scale=2.0)
attempt("pre kwargs", lambda: seen)
gs = []
lin2 = nn.Linear(2, 1)
with torch.no_grad():
    lin2.weight.fill_(1.0); lin2.bias.fill_(0.0)
hb = lin2.register_full_backward_hook(lambda m, gin, gout: gs.append((tuple(g.shape) if g is not None else None for g in gin)))
hb2 = lin2.register_full_backward_pre_hook(lambda m, gout: gs.append(("pre", gout[0].tolist())))
inp = torch.tensor([[1.0, 2.0]], requires_grad=True)
lin2(inp).sum().backward()
attempt("full bw", lambda: [tuple(g) if not isinstance(g, tuple) else g for g in gs])
gs.clear()
lin2(torch.tensor([[1.0, 2.0]])).sum().backward()
attempt("full bw no input grad", lambda: [tuple(g) if not isinstance(g, tuple) else g for g in gs])
hb.remove(); hb2.remove()
h5 = lin2.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 10,))
inp = torch.tensor([[1.0, 2.0]], requires_grad=True)
lin2(inp).sum().backward()
attempt("bw hook replaces", lambda: inp.grad)
