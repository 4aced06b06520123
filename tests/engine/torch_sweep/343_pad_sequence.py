# Batching variable-length sequences with pad_sequence: time-major or batch_first, a padding value,
# left padding, and gradients flowing back through the copies.
import torch
from torch.nn.utils.rnn import pad_sequence
a = torch.ones(2, 3, requires_grad=True); b = torch.ones(4, 3, requires_grad=True)
p = pad_sequence([a, b]); print(p.shape, p.grad_fn)
p = pad_sequence([a, b], batch_first=True, padding_value=-1.0); print(p.shape, p.grad_fn, p[0, :, 0])
p = pad_sequence([a * 2, b], batch_first=True, padding_side='left'); print(p[0, :, 0])
(p * torch.arange(4.0).view(1, 4, 1)).sum().backward(); print(a.grad[:, 0], b.grad[:, 0])
print(pad_sequence([torch.tensor([1, 2]), torch.tensor([3])]))
