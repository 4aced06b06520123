# register_buffer, parameters vs buffers, apply(), named_buffers, requires_grad_(False) freezing, train()/eval().
import torch
import torch.nn as nn


class Normalizer(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("mean", torch.tensor([1.0, 2.0]))
        self.register_buffer("count", torch.tensor(0))
        self.scale = nn.Parameter(torch.ones(2))

    def forward(self, x):
        if self.training:
            self.count += 1
        return (x - self.mean) * self.scale


model = nn.Sequential(Normalizer(), nn.Linear(2, 1))
print([n for n, _ in model.named_parameters()], [n for n, _ in model.named_buffers()])
print(list(model.state_dict().keys()))
with torch.no_grad():
    model[1].weight.fill_(0.5)
    model[1].bias.zero_()
model[0].scale.requires_grad_(False)
out = model(torch.tensor([[3.0, 3.0]]))
out.sum().backward()
print(out, model[0].scale.grad, model[1].weight.grad, model[0].count)
model.eval()
model(torch.tensor([[0.0, 0.0]]))
print(model[0].count, model.training, model[0].training)


def init_weights(m):
    if isinstance(m, nn.Linear):
        nn.init.constant_(m.weight, 0.25)
        print("init", m)


model.apply(init_weights)
print(model[1].weight, sum(p.numel() for p in model.parameters() if p.requires_grad))
print(model[0].mean.requires_grad, model[0].count.dtype)
