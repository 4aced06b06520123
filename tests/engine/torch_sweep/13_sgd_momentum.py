# SGD with momentum, nesterov and weight decay on a linear regression, step by step.
import torch
import torch.nn as nn

X = torch.linspace(-1, 1, 12).reshape(6, 2)
Y = X @ torch.tensor([[2.0], [-3.0]]) + 0.5

for kwargs in [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.05, momentum=0.9, nesterov=True),
               dict(lr=0.1, momentum=0.5, weight_decay=0.01, dampening=0.1)]:
    model = nn.Linear(2, 1)
    with torch.no_grad():
        model.weight.fill_(0.1)
        model.bias.zero_()
    opt = torch.optim.SGD(model.parameters(), **kwargs)
    for step in range(20):
        opt.zero_grad()
        loss = nn.functional.mse_loss(model(X), Y)
        loss.backward()
        opt.step()
    print(kwargs, loss.item())
    print(model.weight.data, model.bias.data)
print(opt.param_groups[0]['lr'], opt.param_groups[0]['momentum'])
print(opt.state_dict()['param_groups'][0]['params'])
