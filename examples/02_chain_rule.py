# title: The chain rule, node by node
# title_zh: 链式法则，逐个节点
# concept: autograd, backprop stepper
# Open the Step tab: each backward node multiplies the upstream gradient by its local rule.
import torch

a = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
b = torch.tensor([3.0, 1.0, -0.5], requires_grad=True)
c = a * b           # MulBackward0
d = torch.tanh(c)   # TanhBackward0
e = d + a           # AddBackward0: a is used twice, so its gradients add up
loss = (e * e).mean()
loss.backward()

print(a.grad)
print(b.grad)
