# load_state_dict: strict errors for missing, unexpected and wrongly shaped entries, word for word.
import torch
import torch.nn as nn

model = nn.Sequential(nn.Linear(2, 3), nn.ReLU(), nn.Linear(3, 1))
good = {k: torch.full_like(v, 0.5) for k, v in model.state_dict().items()}
print(model.load_state_dict(good))
print(model[2].weight, model[0].bias)
missing = {k: v for k, v in good.items() if k != "2.bias"}
try:
    model.load_state_dict(missing)
except RuntimeError as e:
    print("RuntimeError:", e)
extra = dict(good, **{"3.weight": torch.zeros(1)})
try:
    model.load_state_dict(extra)
except RuntimeError as e:
    print("RuntimeError:", e)
wrong = dict(good, **{"0.weight": torch.zeros(3, 3)})
try:
    model.load_state_dict(wrong)
except RuntimeError as e:
    print("RuntimeError:", e)
both = {k: v for k, v in extra.items() if k != "0.bias"}
try:
    model.load_state_dict(both)
except RuntimeError as e:
    print("RuntimeError:", e)
result = model.load_state_dict(both, strict=False)
print(result.missing_keys, result.unexpected_keys)
try:
    model.load_state_dict(wrong, strict=False)
except RuntimeError as e:
    print("RuntimeError:", e)
print(model[0].weight)
