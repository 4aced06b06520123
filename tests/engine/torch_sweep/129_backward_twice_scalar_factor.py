# A second backward through a freed graph raises even when the only saved value is a Python scalar factor.
import torch

x = torch.ones(2, requires_grad=True)
y = (x * 2).sum()
y.backward()
try:
    y.backward()
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
print(x.grad)
