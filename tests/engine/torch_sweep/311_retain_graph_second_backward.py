# retain_graph: backward twice through the same graph accumulates; without it the second call fails with
# PyTorch's message; two losses sharing a trunk.
import torch

torch.manual_seed(2)
x = torch.randn(3, requires_grad=True)
y = (x.exp() * x).sum()
y.backward(retain_graph=True)
print(x.grad)
y.backward()
print(x.grad)
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])

w = torch.tensor([1.0, 2.0], requires_grad=True)
h = torch.tanh(w * 3)
loss1 = h.sum()
loss2 = (h ** 2).mean()
loss1.backward(retain_graph=True)
print(w.grad)
loss2.backward()
print(w.grad)
w.grad = None
(loss1 + loss2).backward() if False else None
h = torch.tanh(w * 3)
(h.sum() + (h ** 2).mean()).backward()
print(w.grad)
a = torch.tensor(2.0, requires_grad=True)
b = a * a
b.backward(retain_graph=True)
b.backward(retain_graph=True)
b.backward()
print(a.grad)
c = a.sigmoid()
c.backward()
try:
    c.backward()
    print("second sigmoid backward worked", a.grad)
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
