# A custom autograd.Function (a straight-through sign estimator and a hand-written ReLU) used inside an
# nn.Module, trained one step; gradients printed and checked against the built-in op.
import torch
import torch.nn as nn


class SignSTE(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return torch.sign(x)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * (x.abs() <= 1).float()


class MyReLU(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(min=0)

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        grad = grad_output.clone()
        grad[x < 0] = 0
        return grad


class BinaryNet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(3, 4)
        self.fc2 = nn.Linear(4, 1)

    def forward(self, x):
        h = MyReLU.apply(self.fc1(x))
        return self.fc2(SignSTE.apply(h - 0.5))


torch.manual_seed(9)
net = BinaryNet()
x = torch.randn(5, 3)
target = torch.randn(5, 1)
out = net(x)
print(out.grad_fn, out.grad_fn.next_functions[0][0])
loss = ((out - target) ** 2).mean()
loss.backward()
print(loss)
print(net.fc1.weight.grad)
print(net.fc2.weight.grad)
z = torch.randn(6, requires_grad=True)
MyReLU.apply(z).sum().backward()
g1 = z.grad.clone()
z.grad = None
torch.relu(z).sum().backward()
print(g1, torch.equal(g1, z.grad))
s = torch.tensor([-2.0, -0.5, 0.0, 0.3, 1.5], requires_grad=True)
y = SignSTE.apply(s)
y.backward(torch.ones(5))
print(y, s.grad)
