# Converting a tensor that requires grad to an integer or bool dtype: the result has no autograd history.
import torch

x = torch.tensor([[0.5, 123.4], [-7.0, 2.0]], requires_grad=True)
y = x * 2
for r in [y.int(), y.long(), y.bool(), x.to(torch.int64), y.double()]:
    print(r, r.requires_grad, r.grad_fn)
