# nn.Linear on a 1-D input: PyTorch 2.13 views it as a 1-row matrix around addmm (ViewBackward0).
import torch

fc = torch.nn.Linear(3, 2)
y = fc(torch.ones(3))
print(y.shape, y.grad_fn, y.grad_fn.next_functions[0][0])
