# unbind into rows or columns, and the moments var_mean / std_mean with their gradients.
import torch

x = torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], requires_grad=True)
a, b = x.unbind()
cols = torch.unbind(x, dim=1)
print(a, b, len(cols), cols[2], sep="\n")
(a * 2 + cols[0].sum() * b).sum().backward()
print(x.grad)
for row in torch.arange(6.0).reshape(3, 2).unbind(-1):
    print(row)
try:
    torch.tensor(1.0).unbind()
except IndexError as e:
    print("IndexError", e)

y = torch.tensor([[1.0, 2.0, 4.0], [3.0, 5.0, 9.0]], requires_grad=True)
var, mean = torch.var_mean(y, dim=1)
print(var, mean)
std, mean0 = torch.std_mean(y, dim=0, keepdim=True)
print(std, mean0)
print(torch.var_mean(y, unbiased=False), torch.std_mean(y, correction=0))
(var.sum() + mean.sum() * 3 + std.sum()).backward()
print(y.grad)
z = torch.tensor([[0.5, 1.5], [2.5, -1.0]], dtype=torch.float64)
print(torch.var_mean(z, 0, correction=0), torch.std_mean(z, (0, 1)))
try:
    torch.var_mean(torch.tensor([1, 2, 3]))
except RuntimeError as e:
    print("RuntimeError", e)
