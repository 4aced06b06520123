# Class reprs as PyTorch prints them (type(model), type(optimizer), torch.dtype, torch.Size, containers, a user
# Module subclass) and the legacy constructors torch.Tensor/FloatTensor/LongTensor with their errors.
import numpy as np
import torch
import torch.nn as nn
def attempt(label, fn):
    try:
        r = fn()
        print(label, r.dtype if hasattr(r, "dtype") else "", r)
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
attempt("Tensor(3)", lambda: torch.Tensor(3).shape)
attempt("Tensor([3])", lambda: torch.Tensor([3]))
attempt("Tensor(2,3)", lambda: torch.Tensor(2, 3).shape)
attempt("Tensor(np)", lambda: torch.Tensor(np.array([1, 2])))
attempt("Tensor(tensor)", lambda: torch.Tensor(torch.tensor([1, 2])))
attempt("Tensor(f64 tensor)", lambda: torch.Tensor(torch.tensor([1.5], dtype=torch.float64)))
attempt("FloatTensor(long)", lambda: torch.FloatTensor(torch.tensor([1, 2])))
attempt("LongTensor(float)", lambda: torch.LongTensor(torch.tensor([1.5])))
attempt("FloatTensor(float)", lambda: torch.FloatTensor(torch.tensor([1.5])))
attempt("Tensor()", lambda: torch.Tensor())
attempt("LongTensor", lambda: torch.LongTensor([[1, 2]]))
attempt("IntTensor", lambda: torch.IntTensor([1.7]))
attempt("Tensor neg", lambda: torch.Tensor(-1))
attempt("Tensor 2,-1", lambda: torch.Tensor(2, -1))
attempt("Tensor float arg", lambda: torch.Tensor(2.5))
attempt("Tensor bool arg", lambda: torch.Tensor(True))
attempt("Tensor tuple", lambda: torch.Tensor((2, 3)))
attempt("Size arg", lambda: torch.Tensor(torch.Size([2, 2])).shape)
t = torch.tensor([1, 2])
a = torch.Tensor(t)
a[0] = 9
print(t)
print(type(nn.Linear(1, 1)), type(torch.float32), type(torch.ones(2).shape), type(torch.optim.SGD(nn.Linear(1, 1).parameters(), lr=1)))
print(torch.Tensor, torch.FloatTensor, nn.Module, nn.Sequential, torch.optim.Adam, torch.optim.lr_scheduler.StepLR, torch.Size, torch.dtype)
class Net(nn.Module):
    pass
print(type(Net()), Net, type(Net()).__mro__[1])
