# More optimizers step by step on seeded gradients: RMSprop (centered, momentum), Adagrad (lr_decay, initial
# accumulator), SGD with dampening and maximize, Adam with beta1 = 0, AdamW with amsgrad and maximize; their reprs.
import torch
torch.manual_seed(3)
grads = [torch.randn(3) for _ in range(6)]
for cls, kw in [(torch.optim.RMSprop, dict(lr=0.01)), (torch.optim.RMSprop, dict(lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)),
                (torch.optim.Adagrad, dict(lr=0.1)), (torch.optim.Adagrad, dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.5)),
                (torch.optim.SGD, dict(lr=0.1, momentum=0.5, dampening=0.5, weight_decay=0.01, maximize=True)),
                (torch.optim.Adam, dict(lr=0.1, betas=(0.0, 0.5))), (torch.optim.AdamW, dict(lr=0.1, weight_decay=1.0, amsgrad=True, maximize=True))]:
    p = torch.nn.Parameter(torch.tensor([1.0, -1.0, 0.5]))
    opt = cls([p], **kw)
    for g in grads:
        p.grad = g.clone()
        opt.step()
    print(cls.__name__, kw, p.data)
    print(opt)
