# Custom autograd.Function: save_for_backward, attributes on ctx, non-tensor arguments, needs_input_grad, gradcheck by hand.
import torch


class ScaledSquare(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale
        return scale * x * x * w

    @staticmethod
    def backward(ctx, grad_out):
        x, w = ctx.saved_tensors
        print("needs", ctx.needs_input_grad)
        gx = grad_out * 2 * ctx.scale * x * w
        gw = grad_out * ctx.scale * x * x if ctx.needs_input_grad[1] else None
        return gx, gw, None


class ClampGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, g):
        return g.clamp(-1, 1)


x = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
w = torch.tensor([3.0, 1.0, -1.0], requires_grad=True)
y = ScaledSquare.apply(x, w, 0.5)
print(y, y.requires_grad)
y.sum().backward()
print(x.grad, w.grad)
x.grad = None
y = ScaledSquare.apply(x, w.detach(), 2.0)
(y * torch.tensor([1.0, 2.0, 3.0])).sum().backward()
print(x.grad)
z = ClampGrad.apply(x * 3)
(z * 10).sum().backward()
print(z, x.grad)
with torch.no_grad():
    print(ScaledSquare.apply(x, w, 1.0).requires_grad)
print(ScaledSquare.apply(torch.ones(2), torch.ones(2), 1.0).requires_grad)
eps = 1e-3
x0 = torch.tensor([0.7], dtype=torch.float64, requires_grad=True)
w0 = torch.tensor([1.3], dtype=torch.float64)
ScaledSquare.apply(x0, w0, 1.5).backward()
numeric = (ScaledSquare.apply(x0.detach() + eps, w0, 1.5) - ScaledSquare.apply(x0.detach() - eps, w0, 1.5)) / (2 * eps)
print(x0.grad, numeric, torch.allclose(x0.grad, numeric))
