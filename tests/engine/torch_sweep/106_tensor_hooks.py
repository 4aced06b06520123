# register_hook on leaves and intermediates, retain_grad, hooks that replace the gradient, removing hooks.
import torch

x = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
log = []
x.register_hook(lambda g: log.append(("x", g.tolist())))
a = x * 2
a.retain_grad()
a.register_hook(lambda g: log.append(("a", g.tolist())))
b = a.relu()
b.retain_grad()
hb = b.register_hook(lambda g: g * 100)
c = (b ** 2).sum()
c.backward()
print(log)
print(x.grad, a.grad, b.grad, c.grad)
print(a.retains_grad, b.is_leaf, c.retains_grad)
hb.remove()
log.clear()
x.grad = None
b = (x * 2).relu()
b.register_hook(lambda g: print("b grad", g))
b.register_hook(lambda g: g + 1)
b.register_hook(lambda g: print("after", g))
b.sum().backward()
print(x.grad, log)
w = torch.tensor(2.0, requires_grad=True)
w.register_hook(lambda g: g.clamp(max=1.0))
(w * 5).backward()
(w * 0.5).backward()
print(w.grad)
try:
    torch.tensor([1.0]).register_hook(lambda g: g)
except RuntimeError as e:
    print("RuntimeError:", e)
