# get_parameter/get_buffer/get_submodule by dotted path, and PyTorch's words when the path names the wrong thing.
import torch
import torch.nn as nn
m = nn.Sequential(nn.Linear(2, 2), nn.BatchNorm1d(2))
for fn, t in [(m.get_parameter, "0.nothing"), (m.get_parameter, "1.running_mean"), (m.get_parameter, "0.in_features"),
              (m.get_buffer, "1.weight"), (m.get_buffer, "1.zz"), (m.get_buffer, "0.training"), (m.get_parameter, "0.weight"),
              (m.get_buffer, "1.running_var"), (m.get_parameter, "5.weight")]:
    try:
        r = fn(t); print(t, r.shape)
    except AttributeError as e:
        print(t, "AttributeError:", e)
