# Checkpoints with torch.save/torch.load (in memory): a dict of model and optimizer state_dicts, numbers, a dtype and
# a Size round trip and restore a fresh model; a whole pickled model needs weights_only=False; tensors lose history.
import io
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, str(exc).split(".")[0])
torch.manual_seed(0)
model = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1))
opt = torch.optim.Adam(model.parameters(), lr=0.01)
x = torch.randn(4, 2)
model(x).sum().backward()
opt.step()
buf = io.BytesIO()
torch.save({"epoch": 3, "model": model.state_dict(), "optimizer": opt.state_dict(), "loss": 0.25,
            "dtype": torch.float64, "shape": torch.Size([2, 3])}, buf)
buf.seek(0)
ckpt = torch.load(buf)
print(sorted(ckpt), ckpt["epoch"], ckpt["loss"], ckpt["dtype"], ckpt["dtype"] is torch.float64, ckpt["shape"])
print(type(ckpt["model"]).__name__, list(ckpt["model"])[:3], ckpt["model"]["1.running_mean"])
print(ckpt["optimizer"]["param_groups"][0]["lr"], sorted(ckpt["optimizer"]["state"][0]), ckpt["optimizer"]["state"][3]["exp_avg"])
fresh = nn.Sequential(nn.Linear(2, 3), nn.BatchNorm1d(3), nn.ReLU(), nn.Linear(3, 1))
print(fresh.load_state_dict(ckpt["model"]))
fresh_opt = torch.optim.Adam(fresh.parameters(), lr=0.5)
fresh_opt.load_state_dict(ckpt["optimizer"])
model.eval(); fresh.eval()
print(torch.equal(model(x), fresh(x)), fresh_opt.param_groups[0]["lr"], fresh_opt.state[fresh[3].bias]["step"])
buf = io.BytesIO()
torch.save(model, buf)
buf.seek(0)
attempt("whole model", lambda: torch.load(buf))
buf.seek(0)
attempt("whole model trusted", lambda: type(torch.load(buf, weights_only=False)).__name__)
buf = io.BytesIO()
torch.save([torch.ones(2, requires_grad=True) * 2, nn.Parameter(torch.zeros(1)), torch.arange(3)], buf)
buf.seek(0)
print(torch.load(buf))
