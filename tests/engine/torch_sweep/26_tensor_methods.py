# Everyday tensor methods: view/reshape/permute/squeeze, cat/stack/chunk/split, item/tolist/numpy.
import numpy as np
import torch

t = torch.arange(12.0)
print(t.view(3, 4), t.view(-1, 6).shape, t.reshape(2, 2, 3).permute(2, 0, 1).shape)
s = t.view(1, 3, 1, 4)
print(s.squeeze().shape, s.squeeze(0).shape, s.unsqueeze(1).shape, s.flatten().shape, s.flatten(1, 2).shape)
print(t.dim(), s.dim(), s.ndim, s.numel(), t.size(0), s.size(-1), len(t))
a, b = t.view(2, 6).chunk(2)
print(a, b)
print([p.shape for p in t.split([5, 7])], [p.tolist() for p in t.split(5)])
print(torch.cat([a, b], dim=1), torch.stack([a, b]).shape, torch.stack([a, b], dim=-1).shape)
print(t.view(3, 4).t().contiguous().is_contiguous())
n = np.array([[1.5, 2.5], [3.5, 4.5]], dtype=np.float32)
fn = torch.from_numpy(n)
n[0, 0] = -1.0
print(fn, fn.dtype)
print(torch.tensor(n), torch.as_tensor([1, 2]), torch.from_numpy(np.arange(3)))
print(t[3].item(), t.max().item(), t.view(3, 4)[1].tolist(), t.int().tolist()[:3])
print(type(t.numpy()).__name__, t.numpy().dtype, t.view(3, 4).numpy()[1])
print(t.new_zeros(2), t.new_ones((1, 2)), t.new_full((2,), 3.0), t.new_tensor([1, 2]))
print(t.view(3, 4).repeat(1, 2).shape, t[:2].repeat(3))
print(torch.zeros(2, 3).expand_as(torch.zeros(4, 2, 3)).shape, t.clone().requires_grad, t.float().dtype, t.double().dtype)
print(t.clamp(2, 5)[:7], t.clamp(min=9)[7:], t.lt(3).sum(), (t >= 10).nonzero(), (t == 4).any(), (t >= 0).all())
print(torch.zeros(3).uniform_(2.0, 2.0), torch.empty(2).fill_(4).tolist())
