# model.train() / model.eval(): Dropout masks and scales only in training, BatchNorm1d uses batch statistics
# and updates its running estimates only in training.
import torch
import torch.nn as nn

torch.manual_seed(0)
model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6), nn.ReLU(), nn.Dropout(p=0.5), nn.Linear(6, 2))
x = torch.randn(8, 4)
print(model.training, [m.training for m in model])
out_train = model(x)
print(out_train[:2])
bn = model[1]
print(bn.running_mean)
print(bn.running_var)
print(bn.num_batches_tracked)
model.eval()
print(model.training, model[3].training)
with torch.no_grad():
    out_eval1 = model(x)
    out_eval2 = model(x)
print(torch.equal(out_eval1, out_eval2), out_eval1[:2])
print(bn.num_batches_tracked)
model.train()
drop = nn.Dropout(0.25)
y = drop(torch.ones(3, 4))
print(y)
print((y == 0).sum().item(), y.max().item())
drop.eval()
print(drop(torch.ones(2, 3)))
h = model[0](x)
manual = (h - h.mean(0)) / torch.sqrt(h.var(0, unbiased=False) + bn.eps) * bn.weight + bn.bias
print(torch.allclose(bn(h), manual, atol=1e-5))
