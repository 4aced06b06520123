# title: A custom autograd.Function
# title_zh: 自定义 autograd.Function
# concept: autograd, custom backward
# When no built-in op expresses your gradient, write forward and backward yourself.
import torch


class Square(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad_output):
        (x,) = ctx.saved_tensors
        return grad_output * 2 * x


x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
y = Square.apply(x).sum()
y.backward()
print(x.grad)  # tensor([2., 4., 6.])
