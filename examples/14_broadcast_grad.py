# title: Broadcasting and its gradient
# title_zh: 广播及其梯度
# concept: autograd, broadcasting
# A bias of shape [3] is added to every row; its gradient sums over the rows it was copied to.
import torch

x = torch.tensor([[1.0, 2.0, 3.0],
                  [4.0, 5.0, 6.0]], requires_grad=True)
bias = torch.tensor([0.1, 0.2, 0.3], requires_grad=True)
y = (x + bias).relu()
loss = y.sum()
loss.backward()

print(bias.grad)   # tensor([2., 2., 2.]): one per row
print(x.grad)
