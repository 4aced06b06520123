# Walking the backward graph: grad_fn names and next_functions.
import torch

w = torch.tensor([[0.5, -1.0], [2.0, 0.25]], requires_grad=True)
b = torch.tensor([0.1, -0.1], requires_grad=True)
x = torch.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])
h = torch.relu(x @ w + b)
loss = (h.sigmoid() * 2).mean()


def walk(fn, depth=0):
    if fn is None:
        return
    print("  " * depth + str(fn).split(" object")[0].lstrip("<"))
    for nxt, _ in fn.next_functions:
        walk(nxt, depth + 1)


walk(loss.grad_fn)
print(loss.grad_fn)
print(h.grad_fn.next_functions)
lin = torch.nn.functional.linear(x, w, b)
print(lin.grad_fn)
print((x @ w).grad_fn)
print(w.t().grad_fn, w.unsqueeze(0).transpose(0, 2).grad_fn, w.view(4).grad_fn,
      w.reshape(4).grad_fn, w[0].grad_fn, w[:, 1:].grad_fn)
print(w.sum().grad_fn, w.mean(0).grad_fn, w.max().grad_fn,
      torch.cat([w, w]).grad_fn, torch.stack([w, w]).grad_fn,
      w.exp().grad_fn, (w / 2).grad_fn, (-w).grad_fn,
      (w - 1).grad_fn, w.pow(2).grad_fn, (w ** w).grad_fn,
      w.unsqueeze(0).grad_fn, w.permute(1, 0).grad_fn)
print(torch.nn.functional.softmax(w, dim=1).grad_fn,
      torch.nn.functional.log_softmax(w, dim=1).grad_fn,
      torch.tanh(w).grad_fn, w.clamp(0, 1).grad_fn,
      torch.where(w > 0, w, 0.0).grad_fn, w.abs().grad_fn,
      w.sqrt().grad_fn, w.log().grad_fn,
      w.expand(3, 2, 2).grad_fn, w.flatten().grad_fn)
print(loss.grad_fn.next_functions[0][0].next_functions)
leaves = []


def find_leaves(fn):
    if fn is None:
        return
    if hasattr(fn, "variable"):
        leaves.append(fn.variable)
    for nxt, _ in fn.next_functions:
        find_leaves(nxt)


find_leaves(loss.grad_fn)
print(len(leaves), leaves[0] is w, leaves[1] is b, leaves[0].grad_fn)
