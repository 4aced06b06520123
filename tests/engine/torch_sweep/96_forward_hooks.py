# Forward hooks that read activations, replace outputs and inputs; the order they run in; removing them.
import torch
import torch.nn as nn

net = nn.Sequential(nn.Linear(2, 3), nn.Tanh(), nn.Linear(3, 1))
with torch.no_grad():
    for i, p in enumerate(net.parameters()):
        p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (i + 1))
acts = {}
handles = []
for name, m in net.named_modules():
    if name:
        handles.append(m.register_forward_hook(lambda mod, inp, out, name=name: acts.__setitem__(name, out.detach())))
x = torch.tensor([[1.0, -1.0], [0.5, 2.0]])
y = net(x)
print(list(acts), acts["1"], y)
order = []
net.register_forward_pre_hook(lambda m, inp: order.append("pre"))
net.register_forward_hook(lambda m, inp, out: order.append("post"))
net[0].register_forward_hook(lambda m, inp, out: order.append("inner"))
doubled = net[2].register_forward_hook(lambda m, inp, out: out * 2)
print(net(x), order)
doubled.remove()
for h in handles:
    h.remove()
acts.clear()
print(net(x), acts)
shift = net[0].register_forward_pre_hook(lambda m, inp: (inp[0] + 1,))
z = net(x)
z.sum().backward()
print(z, net[0].weight.grad)
shift.remove()
print(net(x))
