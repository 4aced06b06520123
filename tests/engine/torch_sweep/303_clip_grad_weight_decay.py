# Gradient clipping with clip_grad_norm_ (it returns the total norm before clipping) and SGD weight decay
# compared with adding the L2 penalty to the loss by hand.
import torch
import torch.nn as nn

torch.manual_seed(7)
x = torch.randn(10, 3)
y = torch.randn(10, 1)

model = nn.Linear(3, 1)
loss = ((model(x) - y) ** 2).mean() * 50
loss.backward()
before = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
total = nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
after = torch.sqrt(sum(p.grad.pow(2).sum() for p in model.parameters()))
print("before", before, "returned", total, "after", after)
print(model.weight.grad, model.bias.grad)

torch.manual_seed(11)
a = nn.Linear(3, 1)
b = nn.Linear(3, 1)
b.load_state_dict(a.state_dict())
opt_a = torch.optim.SGD(a.parameters(), lr=0.1, weight_decay=0.01)
opt_b = torch.optim.SGD(b.parameters(), lr=0.1)
for step in range(3):
    opt_a.zero_grad()
    opt_b.zero_grad()
    loss_a = nn.functional.mse_loss(a(x), y)
    l2 = sum((p ** 2).sum() for p in b.parameters())
    loss_b = nn.functional.mse_loss(b(x), y) + 0.005 * l2
    loss_a.backward()
    loss_b.backward()
    opt_a.step()
    opt_b.step()
    print(step, loss_a.item(), loss_b.item())
print(a.weight.data)
print(b.weight.data)
print(torch.allclose(a.weight, b.weight, atol=1e-6), torch.allclose(a.bias, b.bias, atol=1e-6))

model = nn.Linear(3, 1)
(model(x).sum() * 100).backward()
nn.utils.clip_grad_value_(model.parameters(), clip_value=0.5)
print(model.weight.grad, model.bias.grad)
