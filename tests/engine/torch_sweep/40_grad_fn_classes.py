# The class of a grad_fn and its name(): PyTorch has one class per backward function.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = (x * 2).sum()
print(type(y.grad_fn).__name__, y.grad_fn.name())
print([type(f).__name__ for f, _ in y.grad_fn.next_functions])
