# The seed article's two-layer perceptron (100 -> 128 -> 10) with a seed added: random batch, one Adam step,
# inference under no_grad, a detached weight, and a custom Square function.
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)


class MLP(nn.Module):
    def __init__(self, d_in, d_hid, d_out):
        super().__init__()
        self.fc1 = nn.Linear(d_in, d_hid)
        self.fc2 = nn.Linear(d_hid, d_out)

    def forward(self, x):
        x = F.relu(self.fc1(x))
        return self.fc2(x)


x = torch.randn(32, 100)
y = torch.randint(0, 10, (32,))
model = MLP(100, 128, 10)
opt = torch.optim.Adam(model.parameters(), lr=1e-3)
logits = model(x)
loss = F.cross_entropy(logits, y)
opt.zero_grad()
loss.backward()
opt.step()
print(loss, logits[0, :4])
print(model.fc2.bias.grad[:4], model.fc2.bias[:4])
with torch.no_grad():
    pred = model(x)
frozen = model.fc1.weight.detach()
print(F.cross_entropy(pred, y), pred.requires_grad, frozen.requires_grad, frozen[0, :3])


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x ** 2

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return 2 * x * grad_output


t = torch.randn(4, requires_grad=True)
Square.apply(t).sum().backward()
print(t, t.grad, torch.allclose(t.grad, 2 * t))
