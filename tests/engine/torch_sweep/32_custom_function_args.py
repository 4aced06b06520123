# Custom autograd.Function: several inputs, needs_input_grad, non-tensor arguments.
import torch


class MulAdd(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, y, alpha):
        ctx.save_for_backward(x, y)
        ctx.alpha = alpha
        return x * y + alpha

    @staticmethod
    def backward(ctx, g_prod):
        x, y = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        return g_prod * y, g_prod * x, None


class Clip(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.clamp(-1, 1)

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * (x.abs() <= 1).float()


x = torch.tensor([1.0, 2.0, -3.0], requires_grad=True)
y = torch.tensor([0.5, 0.5, 0.5])
p = MulAdd.apply(x, y, 2.0)
print(p)
(p * p).sum().backward()
print(x.grad)
z = torch.tensor([-2.0, 0.5, 1.5], requires_grad=True)
out = Clip.apply(z * 2)
print(out, out.grad_fn)
out.sum().backward()
print(z.grad)
