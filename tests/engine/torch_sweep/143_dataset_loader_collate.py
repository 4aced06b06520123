# Custom Datasets through DataLoader: tuple, dict and string fields collated, batch_size=None converting each sample,
# collate_fn, TensorDataset slicing and errors, shuffle/random_split facts that hold for any order.
import torch
from torch.utils.data import DataLoader, Dataset, TensorDataset
def attempt(label, fn):
    try:
        print(label, fn())
    except Exception as exc:
        print(label, "ERROR", type(exc).__name__, exc)

class Squares(Dataset):
    def __init__(self, n):
        self.x = torch.arange(n, dtype=torch.float32)
    def __len__(self):
        return len(self.x)
    def __getitem__(self, i):
        return self.x[i], self.x[i] ** 2

class Dicts(Dataset):
    def __len__(self):
        return 5
    def __getitem__(self, i):
        return {"x": torch.tensor([i, i + 1.0]), "label": i % 2, "name": f"s{i}", "w": 0.5 * i}

ds = Squares(7)
for xb, yb in DataLoader(ds, batch_size=3):
    print(xb, yb)
for batch in DataLoader(Dicts(), batch_size=2):
    print(batch)
attempt("len", lambda: (len(DataLoader(ds, batch_size=3)), len(DataLoader(ds, batch_size=3, drop_last=True)), len(DataLoader(ds))))
attempt("bs none", lambda: [b for b in DataLoader(TensorDataset(torch.arange(3)), batch_size=None)])
attempt("bs1", lambda: next(iter(DataLoader(ds))))
attempt("tuple items", lambda: next(iter(DataLoader([(1, 2.0), (3, 4.0)], batch_size=2))))
attempt("list of tensors", lambda: next(iter(DataLoader([torch.ones(2), torch.zeros(2)], batch_size=2))))
attempt("numpy items", lambda: next(iter(DataLoader([__import__("numpy").array([1.0, 2.0])] * 2, batch_size=2))))
attempt("tds mismatch", lambda: TensorDataset(torch.ones(3), torch.ones(4)))
attempt("tds slice", lambda: TensorDataset(torch.arange(5), torch.arange(5) * 2)[1:3])
attempt("tds tensors", lambda: len(TensorDataset(torch.arange(5)).tensors))
attempt("collate", lambda: torch.utils.data.default_collate([(torch.tensor(1), 2), (torch.tensor(3), 4)]))
attempt("shuffle facts", lambda: sorted(torch.cat([xb for xb, _ in DataLoader(ds, batch_size=2, shuffle=True)]).tolist()))
attempt("random_split lens", lambda: [len(s) for s in torch.utils.data.random_split(ds, [5, 2])])
attempt("random_split frac", lambda: [len(s) for s in torch.utils.data.random_split(ds, [0.5, 0.5])])
attempt("subset", lambda: list(torch.utils.data.Subset(ds, [0, 3]))[1])
attempt("loader attrs", lambda: (lambda l: (l.batch_size, l.drop_last, l.dataset is ds))(DataLoader(ds, batch_size=4)))
attempt("dataset add", lambda: len(ds + ds))
import numpy as np
from collections import namedtuple
Pair = namedtuple("Pair", "a b")
attempt("bs none np", lambda: list(DataLoader([np.array([1.0, 2.0]), (np.float64(2.5), "s"), {"k": (1, np.int32(3))}, Pair(np.ones(1), 2)], batch_size=None)))
attempt("bs none collate", lambda: list(DataLoader([1, 2], batch_size=None, collate_fn=lambda x: x * 10)))
attempt("collate fn", lambda: list(DataLoader([1, 2, 3], batch_size=2, collate_fn=lambda b: sum(b))))
