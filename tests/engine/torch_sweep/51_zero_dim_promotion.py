# A 0-d tensor does not raise the dtype of a dimensioned tensor of the same kind (float64 * float32).
import torch

f = torch.tensor([0.5, 1.5, 2.5])
r = torch.tensor(2.0, dtype=torch.float64) * f
print(r, r.dtype, (f + torch.tensor(1, dtype=torch.int32)).dtype, (torch.tensor([1, 2], dtype=torch.int32) + torch.tensor(1)).dtype)
