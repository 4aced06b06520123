# A custom optimizer subclassing torch.optim.Optimizer: defaults, param_groups, per-parameter state, a closure,
# its repr and state_dict, and the base class's checks on the parameters it is given.
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)


class MomentumSGD(torch.optim.Optimizer):
    def __init__(self, params, lr=0.1, beta=0.9):
        if lr <= 0:
            raise ValueError(f"Invalid learning rate: {lr}")
        defaults = dict(lr=lr, beta=beta)
        super().__init__(params, defaults)

    @torch.no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            with torch.enable_grad():
                loss = closure()
        for group in self.param_groups:
            for p in group["params"]:
                if p.grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["velocity"] = torch.zeros_like(p)
                    state["step"] = 0
                v = state["velocity"]
                v.mul_(group["beta"]).add_(p.grad)
                p.add_(v, alpha=-group["lr"])
                state["step"] += 1
        return loss


model = nn.Linear(2, 1)
with torch.no_grad():
    model.weight.copy_(torch.tensor([[0.5, -0.5]]))
    model.bias.zero_()
x = torch.tensor([[1.0, 2.0], [3.0, -1.0], [0.0, 1.0]])
y = torch.tensor([[1.0], [2.0], [0.5]])
opt = MomentumSGD(model.parameters(), lr=0.05)
for i in range(5):
    def closure():
        opt.zero_grad()
        loss = ((model(x) - y) ** 2).mean()
        loss.backward()
        return loss
    loss = opt.step(closure)
    print(i, loss.item())
print(model.weight, model.bias)
print(opt.state[model.weight]["velocity"], opt.state[model.bias]["step"])
print(opt.defaults, [sorted(g.keys()) for g in opt.param_groups])
print(opt)
sd = opt.state_dict()
print(sd["param_groups"], sorted(sd["state"][0].keys()))
attempt("bad lr", lambda: MomentumSGD(model.parameters(), lr=0))
attempt("group override", lambda: MomentumSGD([{"params": [model.weight], "beta": 0.5}, {"params": [model.bias]}]).param_groups)
attempt("no params", lambda: MomentumSGD([]))
attempt("param in two groups", lambda: MomentumSGD([{"params": [model.weight]}, {"params": [model.weight]}]))
attempt("not tensor", lambda: MomentumSGD([1.0]))
attempt("generator consumed", lambda: (lambda g: (MomentumSGD(g), list(g)))(model.parameters())[1])
attempt("base step", lambda: torch.optim.Optimizer([model.weight], {}).step())
