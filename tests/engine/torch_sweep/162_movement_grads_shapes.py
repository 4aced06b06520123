# Movement ops and products: gradients through view/permute/expand/repeat/cat/stack/chunk/split/tril, broadcast
# matmul gradients, squeeze/unsqueeze/flatten/transpose shapes and their errors.
import torch
import torch.nn as nn
import torch.nn.functional as F
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
def grad(fn, *vals):
    xs = [torch.tensor(v, requires_grad=True) for v in vals]
    out = fn(*xs)
    (out * torch.arange(1.0, out.numel() + 1).reshape(out.shape)).sum().backward()
    return out.detach(), [x.grad for x in xs]
m = [[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]
attempt("view grad", lambda: grad(lambda x: x.view(3, 2), m))
attempt("permute grad", lambda: grad(lambda x: x.reshape(1, 2, 3).permute(2, 0, 1), m))
attempt("expand grad", lambda: grad(lambda x: x[:, :1].expand(2, 4), m))
attempt("repeat grad", lambda: grad(lambda x: x.repeat(2, 1), m))
attempt("cat grad", lambda: grad(lambda a, b: torch.cat([a, b, a], dim=1), m, [[7.0], [8.0]]))
attempt("stack grad", lambda: grad(lambda a: torch.stack([a, a * 2], dim=-1), m))
attempt("squeeze tuple", lambda: torch.zeros(1, 2, 1, 3).squeeze((0, 2)).shape)
attempt("squeeze non1", lambda: torch.zeros(2, 3).squeeze(0).shape)
attempt("unsqueeze neg", lambda: torch.zeros(2, 3).unsqueeze(-1).shape)
attempt("unsqueeze oob", lambda: torch.zeros(2, 3).unsqueeze(4))
attempt("flatten range", lambda: torch.zeros(2, 3, 4, 5).flatten(1, -2).shape)
attempt("flatten 0d", lambda: torch.tensor(3.0).flatten().shape)
attempt("transpose neg", lambda: torch.zeros(2, 3, 4).transpose(-1, 0).shape)
attempt("view -1 -1", lambda: torch.zeros(6).view(-1, -1))
attempt("cat dim bad", lambda: torch.cat([torch.zeros(2), torch.zeros(2)], dim=1))
attempt("cat dtype promote", lambda: torch.cat([torch.tensor([1]), torch.tensor([1.5])]))
attempt("stack dtype promote", lambda: torch.stack([torch.tensor([1]), torch.tensor([1.5])]))
attempt("cat 0-size", lambda: torch.cat([torch.zeros(0), torch.ones(2)]))
attempt("matmul bcast grad", lambda: grad(lambda a, b: a @ b, [[[1.0, 2.0]], [[3.0, 4.0]]], [[1.0], [-1.0]]))
attempt("matmul 1d 3d", lambda: grad(lambda a, b: a @ b, [1.0, 2.0], [[[1.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [1.0, 2.0]]]))
attempt("matmul 3d 1d", lambda: grad(lambda a, b: a @ b, [[[1.0, 0.0], [0.0, 1.0]], [[2.0, 1.0], [1.0, 2.0]]], [1.0, 2.0]))
attempt("bmm grad", lambda: grad(torch.bmm, [[[1.0, 2.0]]], [[[3.0], [4.0]]]))
attempt("mm 0d", lambda: torch.tensor(2.0) @ torch.tensor(3.0))
attempt("t of 3d", lambda: torch.zeros(2, 3, 4).t())
attempt("T of 3d", lambda: torch.zeros(2, 3, 4).T.shape)
attempt("mT", lambda: torch.zeros(2, 3, 4).mT.shape)
attempt("chunk grad", lambda: grad(lambda x: torch.cat(x.chunk(2, dim=1)[::-1], dim=1), m))
attempt("split grad", lambda: grad(lambda x: x.split([1, 2], dim=1)[1] * 2, m))
attempt("diag-like via eye", lambda: grad(lambda x: (x * torch.eye(2)).sum(0), [[1.0, 2.0], [3.0, 4.0]]))
attempt("tril", lambda: grad(lambda x: x.tril(), [[1.0, 2.0], [3.0, 4.0]]))
attempt("triu k", lambda: torch.ones(3, 3).triu(1))
attempt("swapaxes", lambda: torch.zeros(1, 2, 3).swapaxes(0, 2).shape)
attempt("view after transpose", lambda: torch.zeros(2, 3).t().view(6))
attempt("reshape after transpose grad", lambda: grad(lambda x: x.t().reshape(6), m))
attempt("contiguous view", lambda: torch.arange(6.0).reshape(2, 3).t().contiguous().view(6))
attempt("expand_as", lambda: torch.tensor([[1.0], [2.0]]).expand_as(torch.zeros(2, 3)))
