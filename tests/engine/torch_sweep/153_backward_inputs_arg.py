# backward(inputs=[...]) accumulates only into the tensors listed; torch.autograd.backward on a list of outputs.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
w = torch.ones(3, requires_grad=True)
(x * w).sum().backward(inputs=[w])
print(x.grad, w.grad)
torch.autograd.backward([(x * 2).sum(), (x * 3).sum()])
print(x.grad)
