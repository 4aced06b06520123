# torch.utils.data as real code imports it: the dataset/sampler/dataloader module paths, a typed
# map-style Dataset, an IterableDataset (batched in order, drop_last, len), ChainDataset,
# StackDataset, default collate of tuples, dicts, namedtuples, numbers and numpy values,
# num_workers accepted, and a seeded shuffle, random_split and samplers in PyTorch's order.
import collections
import numpy as np
import torch
from torch.utils.data import DataLoader, IterableDataset, get_worker_info
from torch.utils.data.dataloader import default_collate
from torch.utils.data.dataset import ChainDataset, Dataset, StackDataset, Subset, TensorDataset, random_split
from torch.utils.data.sampler import BatchSampler, RandomSampler, SequentialSampler, SubsetRandomSampler, WeightedRandomSampler

torch.manual_seed(0)


class Squares(Dataset[int]):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": float(i), "y": i * i, "name": f"s{i}"}


class Counter(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))

    def __len__(self):
        return self.end - self.start


for batch in DataLoader(Squares(5), batch_size=2, shuffle=True, num_workers=2):
    print(batch)
print([b.tolist() for b in DataLoader(Counter(0, 7), batch_size=3)], len(DataLoader(Counter(0, 7), batch_size=3)))
print([b.tolist() for b in DataLoader(Counter(0, 7), batch_size=3, drop_last=True)],
      len(DataLoader(Counter(0, 7), batch_size=3, drop_last=True)))
print(list(DataLoader(ChainDataset([Counter(0, 2), Counter(10, 12)]), batch_size=None)), len(ChainDataset([Counter(0, 2)])))
print(get_worker_info())
try:
    DataLoader(Counter(0, 3), shuffle=True)
except ValueError as exc:
    print("ValueError", exc)

Pair = collections.namedtuple("Pair", "a b")
print(default_collate([Pair(1, 2.0), Pair(3, 4.0)]))
print(default_collate([(np.float32(1.5), np.array([1, 2], dtype=np.int32)), (np.float32(2.5), np.array([3, 4], dtype=np.int32))]))
print(default_collate([{"t": torch.ones(2), "flag": True}, {"t": torch.zeros(2), "flag": False}]))
print(default_collate([[1, 2], [3, 4]]), default_collate(["a", "b"]))
try:
    default_collate([torch.ones(2), torch.ones(3)])
except RuntimeError as exc:
    print("RuntimeError", exc)

ds = TensorDataset(torch.arange(12.0).reshape(6, 2), torch.arange(6))
stacked = StackDataset(ds, Squares(6))
print(stacked[4], len(stacked))
train, val = random_split(ds, [0.7, 0.3])
print(train.indices, val.indices, isinstance(train, Subset))
g = torch.Generator().manual_seed(42)
a, b, c = random_split(range(10), [5, 3, 2], generator=g)
print(list(a), list(b), list(c))
print(list(BatchSampler(RandomSampler(range(7)), batch_size=3, drop_last=False)))
print(list(SubsetRandomSampler([10, 20, 30, 40])), list(SequentialSampler("abc")))
print(list(WeightedRandomSampler([0.1, 0.2, 0.7], 8)))
it = iter(DataLoader(ds, batch_size=4, shuffle=True))
print(torch.rand(1))
for xb, yb in it:
    print(xb.tolist(), yb.tolist())
loader = DataLoader(ds, batch_size=4, shuffle=True, generator=torch.Generator().manual_seed(7), drop_last=True)
for epoch in range(2):
    print(epoch, [yb.tolist() for _, yb in loader], len(loader))
print(torch.rand(2))
