# load_state_dict and BatchNorm's num_batches_tracked: a plain dict (no _metadata) keeps the module's own count,
# a state_dict() that carries version 2 metadata reports it missing.
import copy
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
model(torch.tensor([[1.0, 2.0], [3.0, 5.0]]))
print(model[1].num_batches_tracked)
partial = {"0.weight": model[0].weight.detach().clone()}
print(model.load_state_dict(partial, strict=False))
print(sorted(partial))
sd = model.state_dict()
print(list(sd), sd._metadata)
del sd["1.num_batches_tracked"]
print(model.load_state_dict(sd, strict=False))
try:
    model.load_state_dict(sd)
except RuntimeError as e:
    print("RuntimeError:", e)
plain = dict(sd)
print(model.load_state_dict(plain))
print(model[1].num_batches_tracked)
fresh = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
print(fresh.load_state_dict(copy.deepcopy(model.state_dict())), fresh[1].num_batches_tracked)
print(fresh.load_state_dict({k: v for k, v in model.state_dict().items() if "num_batches" not in k}), fresh[1].num_batches_tracked)
no_stats = nn.BatchNorm1d(2, track_running_stats=False)
print(list(no_stats.state_dict()), no_stats.load_state_dict({}, strict=False))
print(nn.Linear(2, 2).state_dict()._metadata)
