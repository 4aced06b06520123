# max_pool2d's winner where numbers tie or are not numbers, as PyTorch 2.13 picks it: the first
# maximum (a -0.0 before a 0.0 prints as -0.), the last NaN, a window of -inf keeping its first place in
# the image (never the padding); values, return_indices and where the gradient goes.
import torch
import torch.nn.functional as F
nan, inf = float("nan"), float("inf")
x = torch.tensor([[[[-0.0, 0.0, 1.0, nan, 2.0],
                    [0.0, -0.0, nan, 3.0, -inf],
                    [-inf, -inf, 5.0, 5.0, -inf],
                    [-inf, -inf, 0.0, -0.0, nan],
                    [1.0, 1.0, -inf, -inf, -inf]]]], requires_grad=True)
for k, s, p, ceil in [(2, 2, 0, False), (2, 2, 0, True), (3, 2, 1, False), (3, 1, 1, True), (2, 1, 1, False)]:
    y, i = F.max_pool2d(x, k, s, p, ceil_mode=ceil, return_indices=True)
    print(k, s, p, ceil, y[0, 0], i[0, 0])
    (y * torch.arange(1.0, y.numel() + 1).reshape(y.shape)).nan_to_num().sum().backward()
    print(x.grad[0, 0])
    x.grad = None
z = torch.tensor([[[[-0.0, 0.0], [0.0, -0.0]]]])
print(F.max_pool2d(z, 2), F.max_pool2d(z.double(), (1, 2)), F.max_pool2d(-z, (2, 1)))
