# Adam and AdamW (decoupled weight decay) on the same problem, with amsgrad.
import torch

target = torch.tensor([1.0, -2.0, 0.5])
for name, make in [("Adam", lambda p: torch.optim.Adam([p], lr=0.1)),
                   ("Adam wd", lambda p: torch.optim.Adam([p], lr=0.1, weight_decay=0.1)),
                   ("AdamW", lambda p: torch.optim.AdamW([p], lr=0.1, weight_decay=0.1)),
                   ("Adam amsgrad", lambda p: torch.optim.Adam([p], lr=0.05, betas=(0.8, 0.9), amsgrad=True)),
                   ("AdamW default", lambda p: torch.optim.AdamW([p]))]:
    p = torch.zeros(3, requires_grad=True)
    opt = make(p)
    for _ in range(25):
        opt.zero_grad()
        loss = ((p - target) ** 2).sum() + p.abs().sum() * 0.1
        loss.backward()
        opt.step()
    print(name, p, loss.item())
state = opt.state[p]
print(sorted(state.keys()), state['step'])
print(state['exp_avg'])
