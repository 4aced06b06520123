# Error messages for common mistakes: matmul shapes, view sizes, item of many values, Linear on the wrong width.
import torch
import torch.nn as nn


def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, type(exc).__name__ + ":", exc)


a = torch.ones(2, 3)
attempt("mm", lambda: a @ torch.ones(4, 5))
attempt("mm fn", lambda: torch.mm(a, a))
attempt("view", lambda: a.view(4))
attempt("reshape", lambda: a.reshape(5, -1))
attempt("linear", lambda: nn.Linear(4, 2)(a))
attempt("stack", lambda: torch.stack([a, torch.ones(3, 2)]))
attempt("numpy", lambda: torch.ones(2, requires_grad=True).numpy())
attempt("backward twice", lambda: [(y := torch.ones(2, requires_grad=True).exp().sum()).backward(), y.backward()])
attempt("nonscalar", lambda: (torch.ones(2, requires_grad=True) * 2).backward())
attempt("no grad", lambda: torch.ones(2).sum().backward())
attempt("index", lambda: a[2])
attempt("index dim", lambda: a[0, 0, 0])
attempt("dim", lambda: a.sum(dim=2))
attempt("transpose", lambda: a.transpose(0, 2))
attempt("ce target", lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0, 3])))
attempt("ce float", lambda: nn.CrossEntropyLoss()(torch.ones(2, 3), torch.tensor([0.0, 1.0])))
attempt("mse size", lambda: nn.MSELoss()(torch.ones(2, 1), torch.ones(2)).shape)
attempt("leaf inplace", lambda: torch.ones(2, requires_grad=True).mul_(2))
