# PyTorch accepts numpy's `axis=` (and `keepdims=`) as aliases of `dim=`/`keepdim=` in reductions and cat.
import torch

x = torch.tensor([[1.0, 5.0, 3.0], [4.0, 2.0, 6.0]])
print(x.sum(axis=0), x.mean(axis=1), torch.sum(x, axis=1), x.argmax(axis=1))
print(x.max(axis=0).values, x.std(axis=0), x.sum(axis=1, keepdims=True))
print(torch.cat([x, x], axis=1).shape, torch.stack([x, x], axis=0).shape)
