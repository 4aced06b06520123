# torch.cat with mismatched sizes: PyTorch names the dimension sizes and the tensor's position.
import torch

for tensors, dim in [([torch.ones(2, 3), torch.ones(2, 2)], 0), ([torch.ones(2, 3), torch.ones(3, 3), torch.ones(1, 2)], 1)]:
    try:
        torch.cat(tensors, dim=dim)
    except RuntimeError as e:
        print("RuntimeError:", e)
