# Walking the autograd graph of a small computation that selects rows with index_select and tiles with repeat:
# each op's grad_fn and the gradients that reach the leaf.
import torch

torch.manual_seed(5)
table = torch.randn(4, 3, requires_grad=True)
rows = table.index_select(0, torch.tensor([2, 0, 2]))
print(rows.grad_fn)
tiled = rows.repeat(2, 1)
print(tiled.shape, tiled.grad_fn)
loss = (tiled * torch.arange(6.0).unsqueeze(1)).sum()
print(loss.grad_fn, loss.grad_fn.next_functions[0][0])
loss.backward()
print(table.grad)
