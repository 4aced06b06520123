# grad_fn names of matmul with a 1-D left operand and of a 2-D @ 3-D broadcast.
import torch

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
M = torch.arange(6.0).reshape(2, 3).requires_grad_()
B = torch.arange(24.0).reshape(2, 3, 4)
print((v @ M.t()).grad_fn, (M @ B).grad_fn)
