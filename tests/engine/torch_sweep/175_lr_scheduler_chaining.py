# LR schedulers as PyTorch computes them: chained on one optimizer, after a hand-set rate, with an explicit epoch
# (closed form), state_dict round trips, LinearLR/ConstantLR/PolynomialLR/MultiplicativeLR, ReduceLROnPlateau modes.
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
p = nn.Parameter(torch.ones(1))
opt = torch.optim.SGD([p], lr=1.0)
s1 = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
s2 = torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)
for _ in range(3):
    opt.step(); s1.step(); s2.step()
    print(opt.param_groups[0]["lr"], s1.get_last_lr(), s2.get_last_lr())
sd = s1.state_dict()
attempt("sd", lambda: {k: v for k, v in sd.items() if not k.startswith("_get")})
s3 = torch.optim.lr_scheduler.StepLR(opt, step_size=1, gamma=0.5)
attempt("load", lambda: (s3.load_state_dict(sd), s3.last_epoch, s3.get_last_lr()))
o2 = torch.optim.Adam([p], lr=0.1)
lam = torch.optim.lr_scheduler.LambdaLR(o2, lr_lambda=lambda e: 0.5 ** e)
attempt("lambda sd keys", lambda: sorted(lam.state_dict().keys()))
attempt("multistep attrs", lambda: (lambda s: (s.milestones, s.gamma, s.last_epoch))(torch.optim.lr_scheduler.MultiStepLR(torch.optim.SGD([p], lr=1.0), [2, 4, 4])))
attempt("cos T_max", lambda: (lambda o, s: [(o.step(), s.step(), round(o.param_groups[0]["lr"], 5))[2] for _ in range(6)])(*(lambda o: (o, torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=2)))(torch.optim.SGD([p], lr=1.0))))
attempt("linear", lambda: (lambda o: (lambda s: [(o.step(), s.step(), round(o.param_groups[0]["lr"], 5))[2] for _ in range(5)])(torch.optim.lr_scheduler.LinearLR(o, start_factor=0.25, total_iters=3)))(torch.optim.SGD([p], lr=1.0)))
attempt("plateau threshold", lambda: (lambda o: (lambda s: [(s.step(v), o.param_groups[0]["lr"])[1] for v in [1.0, 0.9999, 0.9998, 0.5, 0.49999, 0.49998, 0.49997]])(torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, threshold=1e-3, cooldown=1)))(torch.optim.SGD([p], lr=1.0)))
attempt("plateau abs", lambda: (lambda o: (lambda s: [(s.step(v), o.param_groups[0]["lr"])[1] for v in [1.0, 0.95, 0.9, 0.89, 0.88]])(torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=0, threshold=0.05, threshold_mode="abs")))(torch.optim.SGD([p], lr=1.0)))
attempt("step before opt", lambda: (lambda o: (lambda s: (s.step(), o.param_groups[0]["lr"])[1])(torch.optim.lr_scheduler.StepLR(o, 1, 0.1)))(torch.optim.SGD([p], lr=1.0)))
def trace(make, steps=7, lr=1.0):
    q = nn.Parameter(torch.ones(1))
    o = torch.optim.SGD([q], lr=lr)
    s = make(o)
    out = []
    for _ in range(steps):
        o.step()
        s.step()
        out.append(round(o.param_groups[0]["lr"], 6))
    return out, s.get_last_lr()
attempt("constant", lambda: trace(lambda o: torch.optim.lr_scheduler.ConstantLR(o, factor=0.5, total_iters=3)))
attempt("polynomial", lambda: trace(lambda o: torch.optim.lr_scheduler.PolynomialLR(o, total_iters=4, power=2.0)))
attempt("multiplicative", lambda: trace(lambda o: torch.optim.lr_scheduler.MultiplicativeLR(o, lambda e: 0.9)))
attempt("cos restart-ish", lambda: trace(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=3, eta_min=0.1), steps=10))
attempt("manual lr change", lambda: (lambda o: (lambda s: [(o.step(), s.step(), o.param_groups[0].__setitem__("lr", 5.0) if i == 1 else None, o.param_groups[0]["lr"])[3] for i in range(4)])(torch.optim.lr_scheduler.StepLR(o, 1, 0.5)))(torch.optim.SGD([p], lr=1.0)))
attempt("step epoch", lambda: (lambda o: (lambda s: (s.step(5), o.param_groups[0]["lr"], s.last_epoch))(torch.optim.lr_scheduler.StepLR(o, 2, 0.5)))(torch.optim.SGD([p], lr=1.0)))
attempt("lambda bad", lambda: torch.optim.lr_scheduler.LambdaLR(torch.optim.SGD([p], lr=1.0), lr_lambda=3))
attempt("linear bad", lambda: torch.optim.lr_scheduler.LinearLR(torch.optim.SGD([p], lr=1.0), start_factor=0))
attempt("not optimizer", lambda: torch.optim.lr_scheduler.StepLR([p], 1))
attempt("_LRScheduler", lambda: issubclass(torch.optim.lr_scheduler.StepLR, torch.optim.lr_scheduler._LRScheduler))
attempt("plateau sd keys", lambda: sorted(torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([p], lr=1.0)).state_dict().keys()))
