# title: retain_graph: backward twice through the same graph
# title_zh: retain_graph：对同一张图做两次反向传播
# concept: autograd, graph lifetime
# The graph is freed after backward; retain_graph=True keeps it for a second backward.
import torch

x = torch.tensor([2.0, 3.0], requires_grad=True)
y = (x * x).sum()

y.backward(retain_graph=True)
print(x.grad)   # tensor([4., 6.])
y.backward()    # works because the graph was retained; gradients accumulate
print(x.grad)   # tensor([ 8., 12.])

z = (x * x).sum()
z.backward()
z.backward()    # RuntimeError: Trying to backward through the graph a second time
