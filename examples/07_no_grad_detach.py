# title: no_grad and detach: leaving the graph
# title_zh: no_grad 与 detach：让张量离开计算图
# concept: autograd, no_grad, detach
# Under no_grad no graph is recorded; detach() cuts a tensor out of the graph.
import torch

w = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
x = torch.tensor([0.5, 0.5, 0.5])

with torch.no_grad():
    pred = w * x              # no graph: saves memory when only predicting
print(pred.requires_grad)     # False

frozen = w.detach()           # same numbers, no history
y = (w * x).sum() + (frozen * x).sum()
y.backward()
print(w.grad)                 # only the first term sends gradient: tensor([0.5000, 0.5000, 0.5000])
