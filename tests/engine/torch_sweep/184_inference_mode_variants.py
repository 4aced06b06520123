# torch.inference_mode as a context, a decorator (with and without parentheses), and inference_mode(False),
# which turns gradients on even inside no_grad.
import torch

x = torch.ones(1, requires_grad=True)
with torch.no_grad():
    with torch.inference_mode(False):
        print((x * 2).requires_grad)
with torch.inference_mode(False):
    print((x * 2).requires_grad)
with torch.inference_mode():
    print((x * 2).requires_grad, torch.is_grad_enabled())


@torch.inference_mode(False)
def keep():
    return (x * 2).requires_grad


@torch.inference_mode
def infer():
    return (x * 2).requires_grad


@torch.inference_mode()
def infer_called():
    return (x * 3).sum()


print(keep(), infer(), infer_called(), torch.is_grad_enabled())
