# load_state_dict(strict=False) does not report a BatchNorm's num_batches_tracked as missing.
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
print(model.load_state_dict({"0.weight": model[0].weight.detach().clone()}, strict=False))
