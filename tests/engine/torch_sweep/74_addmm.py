# torch.addmm (input + mat1 @ mat2) with its gradients and argument errors.
import torch

bias = torch.tensor([0.5, -0.5], requires_grad=True)
a = torch.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]], requires_grad=True)
b = torch.tensor([[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]], requires_grad=True)
out = torch.addmm(bias, a, b)
print(out)
out.pow(2).sum().backward()
print(bias.grad, a.grad, b.grad)
print(torch.addmm(torch.ones(2, 2), a, b), torch.addmm(torch.tensor(1.0), a, b).shape)
for bad in [lambda: torch.addmm(torch.ones(2), torch.ones(2, 3), torch.ones(2, 2)),
            lambda: torch.addmm(torch.ones(2), torch.ones(3), torch.ones(3, 2)),
            lambda: torch.addmm(torch.ones(2), torch.ones(2, 3), torch.ones(3)),
            lambda: torch.addmm(torch.ones(3), torch.ones(2, 3), torch.ones(3, 2))]:
    try:
        bad()
    except RuntimeError as e:
        print("RuntimeError:", e)
