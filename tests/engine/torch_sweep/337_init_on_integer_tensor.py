# A common surprise: a weight tensor built from Python ints is int64, so random initialization refuses it
# (PyTorch's random kernels are for floating tensors only); the fix is a float dtype.
import torch
import torch.nn as nn

w = torch.tensor([[1, 2], [3, 4]])
print(w.dtype)
for label, init in [("nn.init.normal_", lambda t: nn.init.normal_(t, std=0.1)),
                    ("nn.init.xavier_uniform_", nn.init.xavier_uniform_),
                    ("Tensor.uniform_", lambda t: t.uniform_(-1, 1)),
                    ("Tensor.normal_", lambda t: t.normal_())]:
    try:
        print(label, init(w.clone()))
    except NotImplementedError as e:
        print(label, "NotImplementedError:", e)
torch.manual_seed(0)
w = torch.tensor([[1, 2], [3, 4]], dtype=torch.float32)
print(nn.init.normal_(w, std=0.1))
print(torch.empty(2, 3).uniform_(-1, 1), nn.init.zeros_(torch.empty(2, dtype=torch.long)))
