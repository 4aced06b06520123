# Assigning .grad of the wrong size or dtype, and changing requires_grad of a computed tensor, are errors.
import torch

x = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
for label, value in [("size", torch.zeros(2)), ("dtype", torch.zeros(3, dtype=torch.float64))]:
    try:
        x.grad = value
    except RuntimeError as e:
        print(label, "RuntimeError:", str(e).split(".")[0])
print(x.grad)
y = x * 2
try:
    y.requires_grad = False
except RuntimeError as e:
    print("RuntimeError:", e)
print(y.requires_grad)
