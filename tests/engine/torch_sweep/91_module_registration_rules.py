# Module registration rules (names taken, empty, dotted, not strings), assignments of the wrong kind, load_state_dict
# inputs that are not dicts or not tensors, shared parameters, prefixes, and hooks.
import torch
import torch.nn as nn

def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)

class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(2, 2)
        self.scale = 3
    def forward(self, x):
        return self.fc(x)

net = Net()
attempt("reg param existing attr", lambda: net.register_parameter("scale", nn.Parameter(torch.ones(1))))
attempt("reg buffer existing attr", lambda: net.register_buffer("scale", torch.ones(1)))
attempt("reg buffer param name", lambda: net.register_buffer("fc", torch.ones(1)))
attempt("reg buffer empty", lambda: net.register_buffer("", torch.ones(1)))
attempt("reg buffer dot", lambda: net.register_buffer("a.b", torch.ones(1)))
attempt("add module existing attr", lambda: net.add_module("scale", nn.ReLU()))
attempt("add module empty", lambda: net.add_module("", nn.ReLU()))
attempt("reg param nonstr", lambda: net.register_parameter(1, None))
attempt("assign tensor to param", lambda: setattr(net.fc, "weight", torch.ones(2, 2)))
attempt("assign int to module", lambda: setattr(net, "fc", 3))
attempt("wrong args", lambda: net(torch.ones(1, 2), torch.ones(1)))
attempt("size mismatch nonstrict", lambda: net.load_state_dict({"fc.weight": torch.ones(3, 2), "fc.bias": torch.ones(2)}, strict=False))
attempt("unexpected nonstrict", lambda: net.load_state_dict({"fc.weight": torch.ones(2, 2), "fc.bias": torch.ones(2), "x": torch.ones(1)}, strict=False))
attempt("load non-tensor", lambda: net.load_state_dict({"fc.weight": [[1.0, 2.0], [3.0, 4.0]], "fc.bias": torch.ones(2)}))
attempt("load not mapping", lambda: net.load_state_dict([1, 2]))
shared = nn.Linear(2, 2)
tied = nn.Sequential(shared, shared)
attempt("shared params", lambda: (len(list(tied.parameters())), [n for n, _ in tied.named_parameters()], list(tied.state_dict())))
attempt("named params prefix", lambda: [n for n, _ in net.named_parameters(prefix="model")])
attempt("state keep vars", lambda: net.state_dict(keep_vars=True)["fc.weight"].requires_grad)
attempt("state prefix", lambda: list(net.state_dict(prefix="m.")))
attempt("children", lambda: list(net.named_children()))
attempt("get_submodule bad", lambda: net.get_submodule("fc.x"))
attempt("get_parameter", lambda: net.get_parameter("fc.bias").shape)
attempt("delattr", lambda: (delattr(net, "scale"), hasattr(net, "scale"))[1])
attempt("train str", lambda: net.train("yes"))
attempt("module repr custom", lambda: net)
attempt("hook", lambda: (net.register_forward_hook(lambda m, i, o: o * 0), net(torch.ones(1, 2)))[1])
attempt("pre hook", lambda: (nn.ReLU().register_forward_pre_hook(lambda m, i: (i[0] - 5,)), )[0].__class__.__name__)
