# Transfer learning: a "pretrained" network's classifier head replaced for a new task (model.fc = ...), a
# Sequential layer swapped by index, and a parameter replaced; print(model), state_dict keys and
# named_parameters keep their order.
import torch
import torch.nn as nn


class Backbone(nn.Module):
    def __init__(self, classes):
        super().__init__()
        self.fc = nn.Linear(6, 4)
        self.act = nn.ReLU()
        self.head = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, classes))

    def forward(self, x):
        return self.head(self.act(self.fc(x)))


torch.manual_seed(8)
model = Backbone(10)
pretrained = {k: v.clone() for k, v in model.state_dict().items()}
model.fc = nn.Linear(6, 4)
model.head[2] = nn.Linear(4, 3)
print(model)
print(list(model.state_dict().keys()))
model.load_state_dict({k: v for k, v in pretrained.items() if not k.startswith("head.2")}, strict=False)
print(torch.equal(model.fc.weight, pretrained["fc.weight"]))
model.fc.bias = nn.Parameter(torch.zeros(4))
print([(n, tuple(p.shape)) for n, p in model.named_parameters()])
for p in model.parameters():
    p.requires_grad = False
for p in model.head[2].parameters():
    p.requires_grad = True
opt = torch.optim.SGD([p for p in model.parameters() if p.requires_grad], lr=0.1)
x = torch.randn(4, 6)
y = torch.tensor([0, 2, 1, 2])
for step in range(3):
    opt.zero_grad()
    loss = nn.functional.cross_entropy(model(x), y)
    loss.backward()
    opt.step()
    print(step, round(loss.item(), 4))
print(model.head[2].bias, model.fc.weight.grad)
