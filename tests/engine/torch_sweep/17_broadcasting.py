# Broadcasting: shapes, results, and gradients summed back to each input's shape.
import torch

a = torch.tensor([[1.0], [2.0], [3.0]], requires_grad=True)
b = torch.tensor([10.0, 20.0, 30.0, 40.0], requires_grad=True)
c = torch.tensor(0.5, requires_grad=True)
out = a * b + c
print(out.shape)
print(out)
out.sum().backward()
print(a.grad, b.grad, c.grad)
x = torch.ones(2, 1, 3)
y = torch.arange(4.0).reshape(4, 1)
print((x + y).shape, (x - y)[1])
print(torch.arange(3) + torch.tensor([[0.5], [1.5]]))
print(torch.arange(6).reshape(2, 3) * torch.tensor([True, False, True]))
print(torch.tensor([1, 2, 3]) / 2, torch.tensor([1, 2, 3]) // 2, torch.tensor([1, 2, 3]) * 1.5)
print(torch.broadcast_to(torch.tensor([1, 2]), (3, 2)))
print(torch.tensor([[1.0, 2.0]]).expand(3, -1))
