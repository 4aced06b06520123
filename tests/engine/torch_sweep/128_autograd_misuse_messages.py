# autograd's words for two misuses: an input the output does not depend on, a gradient of the wrong shape.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
z = torch.tensor([3.0, 4.0], requires_grad=True)
try:
    torch.autograd.grad((x * 2).sum(), [x, z])
except RuntimeError as e:
    print("RuntimeError:", e)
try:
    (x * 2).backward(torch.ones(3))
except RuntimeError as e:
    print("RuntimeError:", e)
print(x.grad)
