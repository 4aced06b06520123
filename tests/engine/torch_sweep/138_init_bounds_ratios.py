# nn.init bounds and spreads as ratios to PyTorch's formulas (large tensors, so the ratios round to 1.0 whatever
# the random numbers: Dagscope's RNG is not PyTorch's), and the initializers' argument handling.
import math
import torch
import torch.nn as nn

def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)

def bound_ratio(t, bound):
    return round(t.abs().max().item() / bound, 2)

def std_ratio(t, std):
    return round(t.std().item() / std, 1)

big = torch.empty(300, 200)
conv = torch.empty(64, 32, 3, 3)
attempt("xu", lambda: bound_ratio(nn.init.xavier_uniform_(big), math.sqrt(6 / 500)))
attempt("xu gain", lambda: bound_ratio(nn.init.xavier_uniform_(big, gain=2.0), 2 * math.sqrt(6 / 500)))
attempt("xu conv", lambda: bound_ratio(nn.init.xavier_uniform_(conv), math.sqrt(6 / (32 * 9 + 64 * 9))))
attempt("ku default", lambda: bound_ratio(nn.init.kaiming_uniform_(big), math.sqrt(6 / 200)))
attempt("ku a", lambda: bound_ratio(nn.init.kaiming_uniform_(big, a=math.sqrt(5)), math.sqrt(6 / ((1 + 5) * 200))))
attempt("ku fan_out", lambda: bound_ratio(nn.init.kaiming_uniform_(big, mode="fan_out"), math.sqrt(6 / 300)))
attempt("ku conv", lambda: bound_ratio(nn.init.kaiming_uniform_(conv, nonlinearity="relu"), math.sqrt(6 / (32 * 9))))
attempt("ku tanh", lambda: bound_ratio(nn.init.kaiming_uniform_(big, nonlinearity="tanh"), 5 / 3 * math.sqrt(3 / 200)))
attempt("kn", lambda: std_ratio(nn.init.kaiming_normal_(big), math.sqrt(2 / 200)))
attempt("kn fan_out", lambda: std_ratio(nn.init.kaiming_normal_(conv, mode="fan_out", nonlinearity="relu"), math.sqrt(2 / (64 * 9))))
attempt("xn", lambda: std_ratio(nn.init.xavier_normal_(big, gain=3.0), 3 * math.sqrt(2 / 500)))
attempt("normal", lambda: (std_ratio(nn.init.normal_(big, 2.0, 0.5), 0.5), round(big.mean().item(), 1)))
attempt("uniform", lambda: (round(nn.init.uniform_(big, -3, 5).min().item()), round(big.max().item())))
attempt("trunc", lambda: (nn.init.trunc_normal_(big, std=1.0, a=-0.5, b=0.5).abs().max().item() <= 0.5))
attempt("bad mode", lambda: nn.init.kaiming_uniform_(big, mode="fan"))
attempt("0-elem", lambda: nn.init.kaiming_uniform_(torch.empty(0, 3)))
attempt("xavier 0", lambda: nn.init.xavier_uniform_(torch.empty(0, 3)))
attempt("eye 1d", lambda: nn.init.eye_(torch.empty(3)))
attempt("constant int", lambda: nn.init.constant_(torch.empty(2, dtype=torch.int64), 3))
attempt("constant float to int", lambda: nn.init.constant_(torch.empty(2, dtype=torch.int64), 2.7))
attempt("zeros f64", lambda: nn.init.zeros_(torch.empty(2, dtype=torch.float64)))
attempt("uniform f64 dtype", lambda: nn.init.uniform_(torch.empty(2, dtype=torch.float64)).dtype)
attempt("gain leaky default", lambda: nn.init.calculate_gain("leaky_relu"))
attempt("gain conv", lambda: (nn.init.calculate_gain("conv2d"), nn.init.calculate_gain("conv_transpose2d")))
attempt("gain bad param", lambda: nn.init.calculate_gain("leaky_relu", "x"))
attempt("normal_ method", lambda: std_ratio(torch.empty(500, 500).normal_(0, 0.1), 0.1))
attempt("uniform_ method", lambda: torch.empty(3).uniform_(1.0, 1.0))
attempt("returned param", lambda: type(nn.init.zeros_(nn.Parameter(torch.empty(2)))).__name__)
attempt("zeros keeps grad", lambda: nn.init.zeros_(nn.Parameter(torch.empty(2))).requires_grad)
