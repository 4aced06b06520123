# A model with dropout gives the same output twice in eval mode and equals the model without dropout.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 8), nn.ReLU(), nn.Dropout(0.3), nn.Linear(8, 2), nn.Dropout(p=0.9))
plain = nn.Sequential(model[0], model[1], model[3])
x = torch.linspace(-1, 1, 12).reshape(3, 4)
model.eval()
a, b = model(x), model(x)
print(torch.equal(a, b), torch.equal(a, plain(x)), a.shape)
print(model[2], model[4], model[2].p, model[4].inplace, model[2].training)
y = torch.arange(1.0, 9.0).reshape(2, 4)
print(F.dropout(y, 0.5, training=False), F.dropout(y, 0.0), F.dropout(y, 1.0, training=True))
print(nn.Dropout(0.0).train()(y), nn.Dropout(1.0)(y))
model.train()
out = F.dropout(torch.ones(1000), p=0.25)
print(bool(((out == 0) | (out == 1 / 0.75)).all()), out.shape)
z = torch.ones(3, requires_grad=True)
F.dropout(z, p=0.5, training=False).sum().backward()
print(z.grad)
