# model.apply(init_fn) visiting every submodule (children first), initialising with nn.init's fixed schemes.
import torch
import torch.nn as nn

visited = []


def init_weights(m):
    visited.append(type(m).__name__)
    if isinstance(m, nn.Linear):
        nn.init.eye_(m.weight)
        if m.bias is not None:
            nn.init.zeros_(m.bias)
    elif isinstance(m, nn.Conv2d):
        nn.init.ones_(m.weight)
        nn.init.constant_(m.bias, -0.5)
    elif isinstance(m, nn.LayerNorm):
        nn.init.constant_(m.weight, 2.0)


model = nn.Sequential(nn.Conv2d(1, 2, 2), nn.ReLU(), nn.Flatten(),
                      nn.Sequential(nn.Linear(8, 3), nn.LayerNorm(3)), nn.Linear(3, 2, bias=False))
result = model.apply(init_weights)
print(result is model, visited)
x = torch.arange(9.0).reshape(1, 1, 3, 3) / 10
out = model(x)
print(out, out.grad_fn)
print(model[0].weight, model[0].bias, model[3][1].weight, model[3][1].bias)
out.sum().backward()
print(model[4].weight.grad, model[3][0].bias.grad)
