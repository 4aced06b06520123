# After backward(create_graph=True) a leaf's .grad is itself in the graph, made by CopyBackwards.
import torch

z = torch.tensor(3.0, requires_grad=True)
(z ** 4).backward(create_graph=True)
print(z.grad)
