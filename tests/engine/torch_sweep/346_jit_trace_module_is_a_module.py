# torch.jit.trace(module) returns a ScriptModule that is an nn.Module: its repr, children, shared parameters,
# train/eval, state_dict, an optimizer stepping it, and a traced child refusing to be called.
import torch, torch.nn as nn
class Net(nn.Module):
    def __init__(s):
        super().__init__(); s.fc=nn.Linear(3,2); s.act=nn.ReLU(); s.seq=nn.Sequential(nn.Linear(2,2))
    def forward(s,x): return s.seq(s.act(s.fc(x)))
torch.manual_seed(0)
n=Net(); x=torch.randn(4,3); t=torch.jit.trace(n, x)
print(isinstance(t, torch.jit.ScriptModule), isinstance(t, nn.Module), isinstance(t.fc, torch.jit.ScriptModule))
print(t); print(t.fc); print(t.original_name, t.training, t.eval() is t, t.training, n.training)
print([k for k,_ in t.named_parameters()], t.fc.weight is n.fc.weight)
print(torch.allclose(t(x), n(x)), t(x))
print(list(t.state_dict().keys()))
print(sum(p.numel() for p in t.parameters()))
opt = torch.optim.SGD(t.parameters(), lr=0.1)
loss = t(x).sum(); loss.backward(); opt.step()
print(n.fc.bias)
try:
    t.fc(x)
except RuntimeError as e:
    print(e)
print(isinstance(torch.jit.trace(lambda a: a * 2, x), nn.Module))
lin = torch.jit.trace(nn.Linear(3, 1), x)
print(lin, type(lin).__name__)
