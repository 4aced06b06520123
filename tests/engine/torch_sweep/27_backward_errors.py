# Autograd errors a class meets: backward twice, retain_graph, non-scalar backward, no grad_fn.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * x).sum()
y.backward(retain_graph=True)
y.backward()
print(x.grad)
z = (x.exp()).sum()
z.backward()
try:
    z.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
try:
    (x * 2).backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    torch.tensor([1.0, 2.0]).sum().backward()
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    x.numpy()
except RuntimeError as e:
    print("RuntimeError:", e)
print(x.detach().numpy())
k = x.detach()
k[0] = 10
print(x)
with torch.no_grad():
    q = x * 3
print(q.requires_grad, q.grad_fn)
