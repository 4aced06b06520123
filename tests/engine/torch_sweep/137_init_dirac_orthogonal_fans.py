# nn.init's deterministic schemes (dirac_), orthogonal_'s defining property, the fan computation and their errors.
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
attempt("bad mode", lambda: nn.init.kaiming_uniform_(torch.empty(2, 2), mode="fan"))
attempt("dirac", lambda: nn.init.dirac_(torch.empty(2, 2, 3, 3)))
attempt("dirac 3d", lambda: nn.init.dirac_(torch.empty(3, 2, 4)))
attempt("dirac groups", lambda: nn.init.dirac_(torch.empty(4, 2, 1, 1), groups=2).flatten(1))
attempt("dirac 2d", lambda: nn.init.dirac_(torch.empty(2, 2)))
attempt("dirac groups bad", lambda: nn.init.dirac_(torch.empty(3, 2, 1, 1), groups=2))
attempt("dirac conv", lambda: (lambda c: (nn.init.dirac_(c.weight), nn.init.zeros_(c.bias), torch.equal(c(torch.arange(18.0).reshape(1, 2, 3, 3)), torch.arange(18.0).reshape(1, 2, 3, 3)))[2])(nn.Conv2d(2, 2, 3, padding=1)))
for shape in [(3, 5), (5, 3), (4, 2, 2), (4, 4)]:
    w = nn.init.orthogonal_(torch.empty(*shape), gain=2.0)
    flat = w.reshape(shape[0], -1) / 2
    g = flat @ flat.t() if shape[0] <= flat.shape[1] else flat.t() @ flat
    print("orth", shape, torch.allclose(g, torch.eye(g.shape[0]), atol=1e-5), w.shape)
attempt("orth 1d", lambda: nn.init.orthogonal_(torch.empty(3)))
attempt("fans", lambda: (nn.init._calculate_fan_in_and_fan_out(torch.empty(64, 32, 3, 3)), nn.init._calculate_fan_in_and_fan_out(torch.empty(5, 7))))
attempt("fans 1d", lambda: nn.init._calculate_fan_in_and_fan_out(torch.empty(5)))
