# Seeded shuffling and splitting: DataLoader(shuffle=True) epochs, a loader's own generator, random_split by counts
# and fractions, and the random numbers drawn after them.
import torch
from torch.utils.data import DataLoader, TensorDataset, random_split
torch.manual_seed(0)
ds = TensorDataset(torch.arange(10.0), torch.arange(10))
for epoch in range(2):
    print([yb.tolist() for _, yb in DataLoader(ds, batch_size=4, shuffle=True)])
print(torch.rand(2))
for _, yb in DataLoader(ds, batch_size=5):
    pass
print(torch.rand(2))
g = torch.Generator().manual_seed(7)
print([yb.tolist() for _, yb in DataLoader(ds, batch_size=3, shuffle=True, generator=g)], torch.rand(1))
tr, te = random_split(ds, [7, 3])
print(tr.indices, te.indices)
a, b, c = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(42))
print(list(a), list(b), list(c))
print(torch.randn(3))
