# BatchNorm's output grad_fn in training and eval mode.
import torch

bn = torch.nn.BatchNorm1d(2)
x = torch.tensor([[1.0, 2.0], [3.0, 5.0]])
print(bn(x).grad_fn)
bn.eval()
print(bn(x).grad_fn)
