# Hooks: forward hooks record activations, full backward hooks print grad_output, tensor hooks print and
# rescale gradients, and a removed hook stops firing.
import torch
import torch.nn as nn

torch.manual_seed(5)
net = nn.Sequential(nn.Linear(4, 3), nn.Tanh(), nn.Linear(3, 2))
activations = {}


def save_activation(name):
    def hook(module, inputs, output):
        activations[name] = output.detach()
        print(f"forward {name}: in {tuple(inputs[0].shape)} out {tuple(output.shape)}")
    return hook


handles = [m.register_forward_hook(save_activation(n)) for n, m in net.named_children()]


def print_grad_output(module, grad_input, grad_output):
    print(type(module).__name__, "grad_output", grad_output[0])


bh = net[2].register_full_backward_hook(print_grad_output)
x = torch.randn(2, 4, requires_grad=True)
out = net(x)
print(sorted(activations), activations["1"])
h = out.register_hook(lambda g: print("grad of out", g))
x.register_hook(lambda g: g * 10)
out.sum().backward()
print("x.grad (scaled by 10):", x.grad)
for handle in handles:
    handle.remove()
bh.remove()
h.remove()
activations.clear()
x.grad = None
net(x).sum().backward()
print("after remove:", activations, x.grad)
