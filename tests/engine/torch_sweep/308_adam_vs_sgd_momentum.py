# Adam versus SGD with momentum (and Nesterov) from the same start on a small quadratic bowl: parameters
# printed each step, then the optimizers' state.
import torch

target = torch.tensor([3.0, -2.0])


def loss_fn(w):
    return ((w - target) ** 2 * torch.tensor([1.0, 10.0])).sum()


def run(make_opt, steps=4):
    w = torch.nn.Parameter(torch.zeros(2))
    opt = make_opt([w])
    for step in range(steps):
        opt.zero_grad()
        loss = loss_fn(w)
        loss.backward()
        opt.step()
        print(f"  step {step} loss {loss.item():8.4f} w {w.data}")
    return w, opt


for label, make in [
    ("sgd", lambda p: torch.optim.SGD(p, lr=0.05)),
    ("momentum", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9)),
    ("nesterov", lambda p: torch.optim.SGD(p, lr=0.05, momentum=0.9, nesterov=True)),
    ("adam", lambda p: torch.optim.Adam(p, lr=0.5)),
    ("adam amsgrad", lambda p: torch.optim.Adam(p, lr=0.5, betas=(0.8, 0.99), amsgrad=True)),
    ("adamw", lambda p: torch.optim.AdamW(p, lr=0.5, weight_decay=0.1)),
]:
    print(label)
    w, opt = run(make)
state = opt.state[w]
print(sorted(state.keys()), state["step"], state["exp_avg"], state["exp_avg_sq"])
print(opt.param_groups[0]["lr"], opt.param_groups[0]["betas"], opt.param_groups[0]["weight_decay"])
torch.manual_seed(0)
w = torch.randn(3, requires_grad=True)
opt = torch.optim.SGD([w], lr=0.1, momentum=0.5, dampening=0.5, weight_decay=0.01)
for _ in range(3):
    opt.zero_grad()
    (w ** 3).sum().backward()
    opt.step()
print(w, opt.state[w]["momentum_buffer"])
