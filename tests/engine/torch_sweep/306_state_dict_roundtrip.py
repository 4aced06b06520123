# state_dict round trips: keys and shapes, named_parameters, saving to a buffer with torch.save and loading
# into a fresh model, strict=False reports, and the copy being independent.
import io
import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(nn.Linear(5, 8), nn.ReLU(), nn.BatchNorm1d(8))
        self.head = nn.Linear(8, 3)

    def forward(self, x):
        return self.head(self.features(x))


torch.manual_seed(1)
net = Net()
for name, p in net.named_parameters():
    print(name, tuple(p.shape), p.requires_grad)
sd = net.state_dict()
print(list(sd.keys()))
print({k: list(v.shape) for k, v in sd.items()})
buffer = io.BytesIO()
torch.save(net.state_dict(), buffer)
buffer.seek(0)
torch.manual_seed(2)
fresh = Net()
x = torch.randn(4, 5)
fresh.eval()
net.eval()
print(torch.allclose(fresh(x), net(x)))
result = fresh.load_state_dict(torch.load(buffer))
print(result)
print(torch.allclose(fresh(x), net(x)), net(x)[0])
with torch.no_grad():
    fresh.head.bias.fill_(0.0)
print(net.head.bias, fresh.head.bias)
partial = {k: v for k, v in net.state_dict().items() if k.startswith("head")}
report = Net().load_state_dict(partial, strict=False)
print(report.missing_keys)
print(report.unexpected_keys)
print(sum(p.numel() for p in net.parameters() if p.requires_grad))
