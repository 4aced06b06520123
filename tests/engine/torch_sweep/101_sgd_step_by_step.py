# SGD's update printed after every step: plain, momentum, dampening, nesterov, weight decay, maximize.
import torch

grads = [torch.tensor([1.0, -2.0]), torch.tensor([0.5, 0.5]), torch.tensor([-1.0, 3.0])]
for kwargs in [dict(lr=0.1), dict(lr=0.1, momentum=0.9), dict(lr=0.1, momentum=0.9, dampening=0.5),
               dict(lr=0.1, momentum=0.8, nesterov=True), dict(lr=0.1, weight_decay=0.5),
               dict(lr=0.1, momentum=0.9, weight_decay=0.1, nesterov=True), dict(lr=0.1, maximize=True)]:
    p = torch.nn.Parameter(torch.tensor([1.0, 2.0]))
    opt = torch.optim.SGD([p], **kwargs)
    steps = []
    for g in grads:
        p.grad = g.clone()
        opt.step()
        steps.append(p.detach().clone())
    print(kwargs)
    print(torch.stack(steps))
    if "momentum" in kwargs:
        print(opt.state[p]["momentum_buffer"])
print(opt.defaults)
try:
    torch.optim.SGD([p], lr=0.1, nesterov=True)
except ValueError as e:
    print("ValueError:", e)
try:
    torch.optim.SGD([p], lr=-1)
except ValueError as e:
    print("ValueError:", e)
