# Older tutorials: Variable, .data updates, typed tensor constructors, grad.data.zero_().
import torch
from torch.autograd import Variable

x = Variable(torch.Tensor([[1, 2], [3, 4]]), requires_grad=True)
w = Variable(torch.FloatTensor([[0.5], [-0.5]]), requires_grad=True)
print(x, w.requires_grad, type(x).__name__)
for step in range(3):
    y = x.mm(w)
    loss = (y - Variable(torch.Tensor([[1], [2]]))).pow(2).sum()
    loss.backward()
    w.data -= 0.01 * w.grad.data
    w.grad.data.zero_()
    print(step, loss.data, loss.item())
print(w.data, w.grad)
print(torch.LongTensor([1, 2]), torch.DoubleTensor([0.5]), torch.Tensor(2, 3).shape, torch.FloatTensor(2).dtype)
print(x.type(), torch.LongTensor([1]).type(), x.data.numpy().sum())
print(isinstance(x, torch.FloatTensor), isinstance(torch.tensor([1]), torch.LongTensor), isinstance(x, torch.Tensor))
