# Tensors in plain Python: f-strings, len, iteration, bool, comparisons, Size arithmetic.
import torch

t = torch.tensor([[1.5, -2.0], [3.25, 4.0]])
s = torch.tensor(0.123456)
print(f"{s.item():.2f}", str(s), "{}".format(t[1]))
print(len(t), [row.tolist() for row in t], list(t[0]), t.shape[0], t.size()[1])
print(bool(t.sum() > 0), bool(torch.tensor([0.0])), (t > 0).any().item(), int(torch.tensor(7)), float(s))
try:
    bool(t)
except RuntimeError as e:
    print("RuntimeError:", e)
print(t == t.clone(), torch.equal(t, t.clone()), (t != 1.5).sum())
print(t.shape == (2, 2), t.shape == torch.Size([2, 2]), torch.Size([2, 3]) + (4,), t.shape[::-1], tuple(t.shape))
print(torch.Size([2, 3]).numel(), type(t.shape).__name__, t.shape[-1:], (1,) + t.shape, t.shape * 2, t.shape[0])
print(max(torch.tensor([3, 1, 2])), sum(torch.tensor([1.0, 2.0, 3.0])), sorted(torch.tensor([3, 1, 2]).tolist()))
print(torch.tensor(5) + 1, 2 ** torch.tensor([1, 2]), 1 / torch.tensor([2.0, 4.0]), -torch.tensor([1, -1]), abs(torch.tensor([-1.5])))
print(torch.tensor([-7, 7]) // 2, torch.tensor([-7, 7]) % 3, torch.div(torch.tensor([-7.0, 7.0]), 2, rounding_mode='floor'), torch.remainder(torch.tensor([-7.5]), 2))
print(torch.max(torch.tensor([1, 5]), torch.tensor([3, 2])), torch.min(torch.tensor([[1.0, 5.0]]), 1))
print(torch.tensor([1, 2, 3])[torch.tensor([True, False, True])], torch.tensor(3).shape, torch.tensor([3]).shape)
