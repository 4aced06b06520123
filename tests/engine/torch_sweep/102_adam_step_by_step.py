# Adam and AdamW parameters printed after each of several steps with fixed gradients, and their state.
import torch

grads = [torch.tensor([[0.1, -0.2], [0.3, 0.0]]), torch.tensor([[0.5, 0.5], [-0.1, 1.0]]),
         torch.tensor([[-0.3, 0.2], [0.0, 0.05]]), torch.tensor([[1.0, -1.0], [2.0, -2.0]])]
for cls, kwargs in [(torch.optim.Adam, dict(lr=0.01)), (torch.optim.Adam, dict(lr=0.1, betas=(0.5, 0.75), eps=1e-3)),
                    (torch.optim.Adam, dict(lr=0.05, weight_decay=0.1)), (torch.optim.AdamW, dict(lr=0.05)),
                    (torch.optim.AdamW, dict(lr=0.05, weight_decay=0.5)),
                    (torch.optim.Adam, dict(lr=0.05, amsgrad=True)), (torch.optim.AdamW, dict(lr=0.05, amsgrad=True))]:
    p = torch.nn.Parameter(torch.tensor([[1.0, -1.0], [0.5, 2.0]]))
    opt = cls([p], **kwargs)
    print(cls.__name__, kwargs)
    for g in grads:
        p.grad = g.clone()
        opt.step()
        print(p.data)
    state = opt.state[p]
    print(state["step"], state["exp_avg"], state["exp_avg_sq"])
print(sorted(opt.defaults.items())[:6])
p = torch.nn.Parameter(torch.tensor([1.0]))
opt = torch.optim.Adam([p], lr=0.1)
opt.step()
print(p, len(opt.state))
