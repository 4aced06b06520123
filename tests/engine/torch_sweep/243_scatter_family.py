# scatter / scatter_ / scatter_add / scatter_add_: a tensor or a number written at indices, and the
# gradients: the overwritten places get none, src gets grad gathered at its index.
import torch

labels = torch.tensor([2, 0, 1, 2])
one_hot = torch.zeros(4, 3).scatter_(1, labels.unsqueeze(1), 1.0)
print(one_hot)

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
src = torch.tensor([[10.0, 20.0], [30.0, 40.0]], requires_grad=True)
index = torch.tensor([[2, 0], [1, 2]])
out = x.scatter(1, index, src)
print(out)
(out * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
print(x.grad, src.grad)

x.grad = None
filled = torch.scatter(x, 0, torch.tensor([[1, 0, 1]]), -1.0)
print(filled)
filled.sum().backward()
print(x.grad)

bins = torch.zeros(3).scatter_add(0, torch.tensor([0, 2, 2, 1, 2]), torch.tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
print(bins)
w = torch.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
acc = torch.scatter_add(torch.zeros(2, 3), 1, torch.tensor([[0, 0], [2, 1]]), w)
print(acc)
(acc * torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])).sum().backward()
print(w.grad)

h = torch.ones(2, 3, requires_grad=True)
y = h * 2
y.scatter_add_(1, torch.tensor([[1], [1]]), torch.tensor([[5.0], [7.0]]))
y.scatter_(0, torch.tensor([[0, 1, 0]]), 0.5)
print(y)
y.sum().backward()
print(h.grad)

big = torch.zeros(3, 4)
print(big.scatter(1, torch.tensor([[3], [0]]), torch.tensor([[1.0, 9.0], [2.0, 9.0]])))
for bad in ("x.scatter(1, index, src.double())", "x.scatter(1, torch.tensor([[5, 0]]), 0.0)",
            "x.scatter(1, torch.tensor([0, 1]), 0.0)", "x.scatter_add(1, torch.tensor([[0, 1, 2, 0]]), x)"):
    try:
        eval(bad)
    except RuntimeError as e:
        print("RuntimeError", e)
