# Samplers: Sequential, Random (with replacement, num_samples), SubsetRandom for a train/validation split,
# WeightedRandom for balanced batches, BatchSampler and DataLoader(batch_sampler=...), and their argument errors.
import torch
from torch.utils.data import (BatchSampler, DataLoader, RandomSampler, SequentialSampler, SubsetRandomSampler,
                              TensorDataset, WeightedRandomSampler)
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)
torch.manual_seed(0)
ds = TensorDataset(torch.arange(10.0), torch.arange(10) % 3)
print(list(SequentialSampler(ds)), len(SequentialSampler(ds)))
print(list(RandomSampler(ds)), list(RandomSampler(ds, replacement=True, num_samples=5)), len(RandomSampler(ds, num_samples=4)))
print(list(RandomSampler(ds, num_samples=13)))
print(list(SubsetRandomSampler([2, 4, 6, 8])), list(WeightedRandomSampler([0.1, 0.9, 0.5], 6)))
print(list(WeightedRandomSampler(torch.tensor([1.0, 0.0, 3.0]), 2, replacement=False)))
print(list(BatchSampler(SequentialSampler(range(7)), 3, drop_last=False)), list(BatchSampler(range(7), 3, drop_last=True)))
train_idx, val_idx = list(range(7)), [7, 8, 9]
train = DataLoader(ds, batch_size=3, sampler=SubsetRandomSampler(train_idx))
val = DataLoader(ds, batch_size=2, sampler=val_idx)
print([yb.tolist() for _, yb in train], len(train), [xb.tolist() for xb, _ in val], len(val))
bs = DataLoader(ds, batch_sampler=BatchSampler(RandomSampler(ds), batch_size=4, drop_last=True))
print([xb.tolist() for xb, _ in bs], len(bs))
labels = (torch.arange(10) % 3)
weights = torch.tensor([1 / 4, 1 / 3, 1 / 3] * 3 + [1 / 4])   # one over the size of each label's class
balanced = DataLoader(ds, batch_size=5, sampler=WeightedRandomSampler(weights, num_samples=10))
print([yb.tolist() for _, yb in balanced])
attempt("sampler+shuffle", lambda: DataLoader(ds, sampler=SequentialSampler(ds), shuffle=True))
attempt("batch_sampler+bs", lambda: DataLoader(ds, batch_size=2, batch_sampler=BatchSampler(range(10), 2, False)))
attempt("num_samples bad", lambda: RandomSampler(ds, num_samples=0))
print(torch.rand(1))
