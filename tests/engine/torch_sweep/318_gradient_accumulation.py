# Gradient accumulation: four micro-batches with loss / 4 give the full batch's gradient (mean reduction),
# and one optimizer step after them matches one step on the full batch.
import torch
import torch.nn as nn

torch.manual_seed(99)
x = torch.randn(16, 5)
y = torch.randn(16, 1)
full = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 1))
accum = nn.Sequential(nn.Linear(5, 4), nn.Tanh(), nn.Linear(4, 1))
accum.load_state_dict(full.state_dict())
loss_fn = nn.MSELoss()
opt_full = torch.optim.SGD(full.parameters(), lr=0.05)
opt_acc = torch.optim.SGD(accum.parameters(), lr=0.05)

opt_full.zero_grad()
loss = loss_fn(full(x), y)
loss.backward()
print("full loss", loss.item())
opt_acc.zero_grad()
running = 0.0
for i, (xb, yb) in enumerate(zip(x.chunk(4), y.chunk(4))):
    micro = loss_fn(accum(xb), yb) / 4
    micro.backward()
    running += micro.item()
    print(f"micro {i} loss {micro.item():.5f} grad[0,0] {accum[0].weight.grad[0, 0].item():.5f}")
print("accumulated loss", running)
for (n, a), b in zip(full.named_parameters(), accum.parameters()):
    print(n, torch.allclose(a.grad, b.grad, atol=1e-6), (a.grad - b.grad).abs().max() < 1e-6)
opt_full.step()
opt_acc.step()
print(full[2].weight, accum[2].weight)
print(full[0].bias.grad)
