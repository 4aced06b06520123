# The classic regression bug: a model's (N, 1) output against an (N,) target broadcasts to (N, N) in MSELoss,
# so the loss is wrong; the fix with squeeze / view; and shapes that don't broadcast at all.
import torch
import torch.nn as nn

torch.manual_seed(3)
x = torch.randn(5, 2)
y = x[:, 0] * 2 - x[:, 1]
model = nn.Linear(2, 1)
criterion = nn.MSELoss()
out = model(x)
print(out.shape, y.shape)
print("broadcast loss:", criterion(out, y))
print("correct loss:  ", criterion(out.squeeze(1), y), criterion(out, y.view(-1, 1)))
print((out - y).shape)
for name, loss_fn in [("mse", nn.MSELoss()), ("l1", nn.L1Loss()), ("smooth_l1", nn.SmoothL1Loss()),
                      ("huber", nn.HuberLoss())]:
    try:
        print(name, loss_fn(out.view(5), y[:3]))
    except RuntimeError as e:
        print(name, "RuntimeError:", e)
