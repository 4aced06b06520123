# DataLoader(num_workers=2): each worker has its own random state (torch seeded with base_seed + id,
# Python's random likewise, numpy's by PyTorch's _generate_state), so augmentations drawn in a
# dataset differ per worker and leave the main stream alone; get_worker_info() in a worker; an
# IterableDataset sharded by worker_init_fn as PyTorch's docs show, round robin over the workers;
# persistent workers keep their state between epochs. Dataset values only (worker ids, seeds
# relative to the base seed), so nothing depends on process scheduling.
import math
import random
import numpy as np
import torch
from torch.utils.data import DataLoader, Dataset, IterableDataset, get_worker_info

torch.manual_seed(0)
random.seed(0)
np.random.seed(0)


class Noisy(Dataset):
    def __len__(self):
        return 6

    def __getitem__(self, i):
        info = get_worker_info()
        return (torch.tensor(float(i)) + torch.rand(()), random.random(), float(np.random.rand()),
                -1 if info is None else info.id)


def show(loader):
    for x, r, n, wid in loader:
        print([round(v, 4) for v in x.tolist()], [round(v, 4) for v in r.tolist()],
              [round(v, 4) for v in n.tolist()], wid.tolist())


show(DataLoader(Noisy(), batch_size=2, num_workers=2))
print(torch.rand(2), round(random.random(), 6), round(float(np.random.rand()), 6))
show(DataLoader(Noisy(), batch_size=2, shuffle=True, num_workers=3))
print(torch.rand(2))
print(get_worker_info())


class Range(IterableDataset):
    def __init__(self, start, end):
        self.start, self.end = start, end

    def __iter__(self):
        return iter(range(self.start, self.end))


def shard(worker_id):
    info = get_worker_info()
    dataset = info.dataset
    per_worker = int(math.ceil((dataset.end - dataset.start) / float(info.num_workers)))
    dataset.start = dataset.start + info.id * per_worker
    dataset.end = min(dataset.start + per_worker, dataset.end)


ds = Range(3, 14)
print([b.tolist() for b in DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=shard)])
print([b.tolist() for b in DataLoader(ds, batch_size=2, num_workers=2)])          # unsharded: each worker yields all
print([b.tolist() for b in DataLoader(ds, batch_size=3, num_workers=3, worker_init_fn=shard, drop_last=True)])
print(list(DataLoader(ds, batch_size=None, num_workers=2, worker_init_fn=shard)))
print(ds.start, ds.end)


persistent = DataLoader(Noisy(), batch_size=3, num_workers=2, persistent_workers=True)
for epoch in range(2):
    show(persistent)
print(torch.rand(2))
