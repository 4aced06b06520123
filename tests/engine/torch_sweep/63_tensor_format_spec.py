# A format spec on a 0-d tensor formats its value, as format(t.item(), spec); f"{t}" of a 0-d tensor
# is its value too (while str(t) is "tensor(...)").
import torch

s = torch.tensor(0.123456)
print(f"{s:.3f}", f"{torch.tensor(7):>4}", f"{torch.tensor([[1.5]])[0, 0]}", str(s))
