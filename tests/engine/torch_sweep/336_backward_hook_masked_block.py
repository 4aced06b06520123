# A full backward hook on a block called as block(x, mask, scale): grad_input has one entry per positional
# argument (x's gradient, zeros for the mask tensor, None for the float), and a hook that rescales x's gradient.
import torch
import torch.nn as nn


class MaskedBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(3, 3)

    def forward(self, x, mask, scale):
        return torch.tanh(self.fc(x)) * mask * scale


torch.manual_seed(6)
block = MaskedBlock()
x = torch.randn(2, 3, requires_grad=True)
mask = torch.tensor([[1.0, 1.0, 0.0], [1.0, 0.0, 1.0]])


def show(module, grad_input, grad_output):
    print("grad_output:", grad_output[0])
    for i, g in enumerate(grad_input):
        print(f"grad_input[{i}]:", g)


handle = block.register_full_backward_hook(show)
block(x, mask, 0.5).sum().backward()
print("x.grad:", x.grad)
handle.remove()
handle = block.register_full_backward_hook(lambda m, gi, go: (gi[0] * 0.1, None, None))
x.grad = None
block(x, mask, 0.5).sum().backward()
print("rescaled:", x.grad)
handle.remove()
data = torch.randn(2, 3)
block.register_full_backward_hook(lambda m, gi, go: print("no input needs grad:", gi))
block(data, mask, 2.0).sum().backward()
print(block.fc.bias.grad)
