# What printing a model, a Parameter, a state_dict, a parameter list and an optimizer shows.
import torch
import torch.nn as nn

torch.manual_seed(1)
lin = nn.Linear(2, 3)
print(lin)
print(lin.weight)
print(lin.bias.data)
print(lin.state_dict())
print(list(lin.parameters()))
print(nn.Parameter(torch.zeros(2)))
print(nn.Parameter(torch.ones(2), requires_grad=False))
print(nn.Parameter(torch.tensor(1.5)))
opt = torch.optim.SGD(lin.parameters(), lr=0.01, momentum=0.9)
print(opt)
print(torch.optim.Adam(lin.parameters()))
print(torch.optim.AdamW(lin.parameters(), lr=3e-4, weight_decay=0.05))
print(opt.state_dict()["param_groups"])
print(nn.MSELoss(), nn.CrossEntropyLoss(), nn.Dropout(0.2), nn.ReLU(inplace=True))
print(nn.Conv2d(3, 16, 3, stride=2, padding=1), nn.MaxPool2d(2, 2), nn.BatchNorm2d(16))
print(nn.Embedding(100, 8, padding_idx=0), nn.LayerNorm([4, 4]), nn.Flatten(), nn.Softmax(dim=-1))
print(type(lin.weight), type(lin.weight.data), isinstance(lin.weight, torch.Tensor))
print(lin.weight.shape, lin.weight.size(0), lin.weight.dtype, lin.weight.device)
