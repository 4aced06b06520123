# title: Autograd on a dynamic graph
# title_zh: 动态图上的自动求导
# concept: dynamic graph, autograd
# The graph is built while the code runs (define-by-run); backward() walks it in reverse.
import torch

x = torch.tensor([1.0, 2.0], requires_grad=True)
y = x * 2
z = y.sum()
z.backward()  # autograd through the graph this forward just built

print(x.grad)  # tensor([2., 2.])
