# Learning-rate schedules: StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, LambdaLR, ReduceLROnPlateau.
import torch

def run(make, epochs=8, metric=None):
    p = torch.nn.Parameter(torch.zeros(1))
    opt = torch.optim.SGD([p], lr=0.1)
    sched = make(opt)
    lrs = []
    for epoch in range(epochs):
        opt.step()
        if metric is None:
            sched.step()
        else:
            sched.step(metric[epoch])
        lrs.append(round(opt.param_groups[0]["lr"], 6))
    return lrs

print(run(lambda o: torch.optim.lr_scheduler.StepLR(o, step_size=3, gamma=0.1)))
print(run(lambda o: torch.optim.lr_scheduler.MultiStepLR(o, milestones=[2, 5], gamma=0.5)))
print(run(lambda o: torch.optim.lr_scheduler.ExponentialLR(o, gamma=0.9)))
print(run(lambda o: torch.optim.lr_scheduler.CosineAnnealingLR(o, T_max=4, eta_min=0.01)))
print(run(lambda o: torch.optim.lr_scheduler.LambdaLR(o, lambda e: 1 / (e + 1))))
print(run(lambda o: torch.optim.lr_scheduler.ReduceLROnPlateau(o, patience=1, factor=0.5),
          metric=[1.0, 0.9, 0.9, 0.9, 0.9, 0.8, 0.8, 0.8]))
