# Printing parameters, parameter lists and a state_dict, as a class inspects a model.
import torch
import torch.nn as nn

lin = nn.Linear(3, 2)
with torch.no_grad():
    lin.weight.copy_(torch.tensor([[0.1, -0.2, 0.3], [0.4, 0.5, -0.6]]))
    lin.bias.copy_(torch.tensor([0.01, -0.02]))
print(lin.weight)
print(lin.bias)
print(list(lin.parameters()))
print(lin.state_dict())
for name, p in lin.named_parameters():
    print(name, p.shape, p.requires_grad, p.grad)
p = nn.Parameter(torch.tensor([1.0, 2.0]))
print(p, isinstance(p, torch.Tensor), p.is_leaf)
print(nn.Parameter(torch.tensor([1.0]), requires_grad=False))
print(p * 2)
print([torch.tensor(1.5), torch.tensor([1, 2])], (torch.tensor(0.5, requires_grad=True),))
print({"a": torch.tensor([True])})
