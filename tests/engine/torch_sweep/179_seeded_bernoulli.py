# torch.bernoulli after torch.manual_seed: probabilities in a float32 or float64 tensor, a number p, a Generator,
# and the error for a probability outside [0, 1].
import torch
torch.manual_seed(0)
p = torch.tensor([0.1, 0.5, 0.9, 0.3, 0.7, 0.2, 0.8, 0.5] * 3)
print(torch.bernoulli(p), torch.bernoulli(torch.full((2, 3), 0.5)))
print(torch.bernoulli(torch.full((4,), 0.5, dtype=torch.float64)), torch.bernoulli(torch.zeros(3), p=0.5))
g = torch.Generator().manual_seed(1)
print(torch.bernoulli(torch.full((6,), 0.3), generator=g), torch.rand(2))
try:
    torch.bernoulli(torch.tensor([1.5]))
except RuntimeError as e:
    print("RuntimeError:", str(e).split(".")[0])
