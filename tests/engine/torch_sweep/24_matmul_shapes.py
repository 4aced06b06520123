# matmul on 1-D, 2-D, batched and broadcast shapes, with the grad_fn names PyTorch uses.
import torch

v = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
M = torch.arange(6.0).reshape(2, 3).requires_grad_()
B = torch.arange(24.0).reshape(2, 3, 4).requires_grad_()
r1 = v @ v
r2 = M @ v
r4 = M @ M.t()
r5 = M @ B[0]
r6 = torch.bmm(B.transpose(1, 2), B)
r7 = torch.mm(M, M.T)
for r in [r1, r2, r4, r5, r6, r7]:
    print(tuple(r.shape), r.grad_fn)
print(r1, r2, r4)
print(r5[1], (M @ B).shape, (v @ M.t()).shape)
(r1 + r2.sum() + r5.sum()).backward()
print(v.grad, M.grad)
print(B.grad[0])
print(torch.matmul(torch.ones(4, 1, 2, 3), torch.ones(5, 3, 2)).shape)
try:
    torch.ones(2, 3) @ torch.ones(2, 3)
except RuntimeError as e:
    print("RuntimeError:", e)
