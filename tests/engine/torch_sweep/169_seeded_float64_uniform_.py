# Tensor.uniform_/normal_ on float64 tensors after torch.manual_seed: PyTorch draws 53-bit uniforms for doubles.
import torch

torch.manual_seed(0)
print(torch.empty(3, dtype=torch.float64).uniform_(-1, 1))
print(torch.empty(4, dtype=torch.float64).normal_(0, 2))
print(torch.empty(20, dtype=torch.float64).normal_()[:3])
