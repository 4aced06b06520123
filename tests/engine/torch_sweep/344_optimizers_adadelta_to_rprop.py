# The rest of torch.optim step by step on seeded gradients: Adadelta, Adamax, NAdam, RAdam (both sides of
# its rectification threshold), ASGD (past t0, so its running average moves), Rprop (gradients that flip
# sign); their reprs and state after the steps.
import torch
torch.manual_seed(5)
grads = [torch.randn(4) for _ in range(8)]
for i in range(2, 8, 3):
    grads[i] = -grads[i - 1] * 0.5          # sign flips, for Rprop
for cls, kw in [(torch.optim.Adadelta, dict()), (torch.optim.Adadelta, dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
                (torch.optim.Adamax, dict(lr=0.1)), (torch.optim.Adamax, dict(lr=0.1, betas=(0.5, 0.9), weight_decay=0.2)),
                (torch.optim.NAdam, dict(lr=0.1)), (torch.optim.NAdam, dict(lr=0.1, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01)),
                (torch.optim.RAdam, dict(lr=0.1)), (torch.optim.RAdam, dict(lr=0.1, betas=(0.9, 0.5), weight_decay=0.1)),
                (torch.optim.RAdam, dict(lr=0.1, decoupled_weight_decay=True, weight_decay=0.5)),
                (torch.optim.ASGD, dict(lr=0.1)), (torch.optim.ASGD, dict(lr=0.1, t0=3, lambd=0.01, weight_decay=0.1)),
                (torch.optim.Rprop, dict()), (torch.optim.Rprop, dict(lr=0.1, etas=(0.3, 1.5), step_sizes=(0.01, 0.2), maximize=True))]:
    p = torch.nn.Parameter(torch.tensor([1.0, -1.0, 0.5, 2.0]))
    opt = cls([p], **kw)
    for g in grads:
        p.grad = g.clone()
        opt.step()
    print(cls.__name__, kw, p.data)
    print(opt)
    print({k: v for k, v in opt.state[p].items()})
