# A transposed tensor is not contiguous; .contiguous() makes a copy that .view accepts.
import torch

a = torch.arange(12).reshape(3, 4)
print(a.t().is_contiguous(), a.transpose(0, 1).contiguous().is_contiguous())
print(a.t().contiguous().view(-1))
