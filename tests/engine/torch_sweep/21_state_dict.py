# state_dict round trips: keys, shapes, load_state_dict with strict and non-strict, buffers.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
sd = model.state_dict()
print(list(sd.keys()))
print({k: tuple(v.shape) for k, v in sd.items()})
copy = nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4), nn.ReLU(), nn.Linear(4, 2))
with torch.no_grad():
    for p in model.parameters():
        p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
result = copy.load_state_dict(model.state_dict())
print(result)
x = torch.linspace(-2, 2, 15).reshape(5, 3)
print(torch.allclose(model(x), copy(x)), torch.equal(copy[3].bias, model[3].bias))
print(copy(x))
print(sd["1.num_batches_tracked"], copy[1].running_var)
partial = {"0.weight": torch.zeros(4, 3), "1.num_batches_tracked": torch.tensor(0)}
print(copy.load_state_dict(partial, strict=False))
try:
    copy.load_state_dict(partial)
except RuntimeError as e:
    print("RuntimeError:", str(e).splitlines()[0])
print(copy[0].weight.sum())
sd = model.state_dict()
sd["0.bias"].fill_(3.0)
print(model[0].bias)
print(nn.Linear(2, 2).state_dict().keys())
