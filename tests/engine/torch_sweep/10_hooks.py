# Tensor hooks, retain_grad, and module forward hooks.
import torch
import torch.nn as nn

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = x * x
y.retain_grad()
seen = []
h = y.register_hook(lambda g: seen.append(g.clone()))
x.register_hook(lambda g: g * 10)
z = (y * torch.tensor([1.0, 0.5, 0.25])).sum()
z.backward()
print(seen)
print(y.grad)
print(x.grad)
h.remove()
print(y.retains_grad, x.retains_grad)

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, 0.2, 0.3], [-0.3, -0.2, -0.1]]))
    lin.bias.copy_(torch.tensor([0.5, -0.5]))
outputs = []
handle = lin.register_forward_hook(lambda module, inputs, output: outputs.append(output.detach()))
pre = lin.register_forward_pre_hook(lambda module, inputs: (inputs[0] * 2,))
out = lin(torch.tensor([[1.0, 1.0, 1.0]]))
print(out)
print(outputs)
handle.remove()
pre.remove()
print(lin(torch.tensor([[1.0, 1.0, 1.0]])))
print(len(outputs))
