# In-place arithmetic on a slice of a non-leaf tensor that requires grad (z[:, 2] *= 2): PyTorch records it
# (CopySlices) and differentiates through it.
import torch

x = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
z = x.clone()
z[:, 2] *= 2
z[0] += 1
(z * z).sum().backward()
print(z, x.grad)
