# train()/eval() flip the flag on every submodule; dropout and batch norm change behaviour with it.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(3, 3), nn.Dropout(0.5), nn.Sequential(nn.BatchNorm1d(3), nn.ReLU()))
with torch.no_grad():
    model[0].weight.copy_(torch.eye(3))
    model[0].bias.zero_()
print([m.training for m in model.modules()])
model.eval()
print([m.training for m in model.modules()])
x = torch.tensor([[1.0, 2.0, 3.0], [3.0, 2.0, 1.0], [0.0, 0.0, 6.0]])
print(model(x))
model.train()
model[1].eval()
print([m.training for m in model.modules()])
print(model(x))
print(model[2][0].running_mean, model[2][0].running_var, model[2][0].num_batches_tracked)
model[2].train(False)
print(model[2][0].training, model[2][1].training, model.training)
print(model(x))
print(model.train() is model, model.eval() is model)
