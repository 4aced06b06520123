# TensorDataset and DataLoader without shuffling: batches, lengths, drop_last.
import torch
from torch.utils.data import DataLoader, TensorDataset

X = torch.arange(20.0).reshape(10, 2)
y = torch.arange(10) % 2
ds = TensorDataset(X, y)
print(len(ds), ds[3])
loader = DataLoader(ds, batch_size=4)
print(len(loader))
for xb, yb in loader:
    print(xb.shape, yb)
for i, (xb, yb) in enumerate(DataLoader(ds, batch_size=3, drop_last=True)):
    print(i, xb[:, 0], yb.sum())
first = next(iter(DataLoader(ds, batch_size=5)))
print(type(first).__name__, len(first), first[0].dtype, first[1].dtype)
