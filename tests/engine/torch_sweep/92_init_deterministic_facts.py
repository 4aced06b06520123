# nn.init on weights: what holds whatever the random numbers are (Dagscope's RNG is not PyTorch's, so no
# sampled values are printed): degenerate ranges, returned objects, bounds, fan modes, no autograd history.
import math
import torch
import torch.nn as nn

w = nn.Parameter(torch.empty(4, 6))
out = nn.init.normal_(w, mean=0.5, std=0.0)
print(out is w, w, w.grad_fn, w.requires_grad)
print(nn.init.uniform_(torch.empty(2, 3), a=-1.5, b=-1.5))
print(nn.init.constant_(torch.empty(2, 2, dtype=torch.float64), -2.25))
nn.init.kaiming_uniform_(w, mode="fan_out", nonlinearity="relu")
print(bool(w.abs().max() <= math.sqrt(2) * math.sqrt(3 / 4)), bool(w.abs().max() > 0))
nn.init.kaiming_uniform_(w, mode="fan_in", nonlinearity="relu")
print(bool(w.abs().max() <= math.sqrt(2) * math.sqrt(3 / 6)))
nn.init.xavier_uniform_(w, gain=nn.init.calculate_gain("tanh"))
print(bool(w.abs().max() <= 5 / 3 * math.sqrt(6 / 10)), w.shape, w.dtype)
big = torch.empty(200, 300)
nn.init.xavier_normal_(big)
print(abs(big.std().item() - math.sqrt(2 / 500)) < 0.005, abs(big.mean().item()) < 0.005)
nn.init.kaiming_normal_(big, nonlinearity="relu")
print(abs(big.std().item() - math.sqrt(2 / 300)) < 0.005)
nn.init.normal_(big, std=0.02)
print(abs(big.std().item() - 0.02) < 0.001, big.requires_grad)
nn.init.uniform_(big)
print(bool(big.min() >= 0), bool(big.max() <= 1), abs(big.mean().item() - 0.5) < 0.01)
conv = nn.Conv2d(3, 8, 3)
nn.init.kaiming_normal_(conv.weight, mode="fan_out")
nn.init.zeros_(conv.bias)
print(conv.bias, conv.weight.shape, conv.weight.is_leaf)
with torch.no_grad():
    nn.init.ones_(conv.bias)
print(conv.bias.sum(), conv.bias.grad_fn)
