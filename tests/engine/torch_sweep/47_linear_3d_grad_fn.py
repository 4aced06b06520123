# F.linear on a 3-D input: PyTorch flattens, runs addmm and views back (ViewBackward0).
import torch

fc = torch.nn.Linear(2, 1)
print(fc(torch.ones(2, 3, 2)).grad_fn)
