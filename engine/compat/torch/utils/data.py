"""`torch.utils.data`: Dataset, TensorDataset, DataLoader (batching, shuffling, drop_last, PyTorch's default
collate) and random_split, drawing from the generators as PyTorch does (so a seeded run shuffles and splits
the same way). Single process: num_workers is ignored."""
from __future__ import annotations

import numbers

import numpy as np

from engine import creation
from engine.random_pytorch import Generator
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.tensor import Tensor


class Dataset:
    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class TensorDataset(Dataset):
    def __init__(self, *tensors: Tensor):
        if any(t.array.shape[0] != tensors[0].array.shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(Tensor(t.array[index]) for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].array.shape[0]


class ConcatDataset(Dataset):
    def __init__(self, datasets):
        self.datasets = list(datasets)
        self.cumulative_sizes = list(np.cumsum([len(d) for d in self.datasets]))

    def __len__(self) -> int:
        return int(self.cumulative_sizes[-1]) if self.cumulative_sizes else 0

    def __getitem__(self, index: int):
        if index < 0:
            index += len(self)
        k = int(np.searchsorted(self.cumulative_sizes, index, side="right"))
        start = 0 if k == 0 else int(self.cumulative_sizes[k - 1])
        return self.datasets[k][index - start]


class Subset(Dataset):
    def __init__(self, dataset, indices):
        self.dataset, self.indices = dataset, list(indices)

    def __getitem__(self, index):
        return self.dataset[self.indices[index]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(dataset, lengths, generator=None) -> list:
    n = len(dataset)
    if all(isinstance(x, float) for x in lengths) and abs(sum(lengths) - 1) < 1e-9:
        counts = [int(np.floor(n * frac)) for frac in lengths]
        for i in range(n - sum(counts)):        # remainders go round-robin, as PyTorch does
            counts[i % len(counts)] += 1
        lengths = counts
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    order = creation.rng(generator).permutation(n).tolist()
    out, offset = [], 0
    for length in lengths:
        out.append(Subset(dataset, order[offset:offset + length]))
        offset += length
    return out


def default_collate(batch):
    """Stack a list of samples into a batch, field by field, as PyTorch's default_collate."""
    first = batch[0]
    if isinstance(first, Tensor):
        return Tensor(np.stack([b.array for b in batch]))
    if isinstance(first, np.ndarray):
        return Tensor(np.stack(batch))
    if isinstance(first, bool):
        return Tensor(np.array(batch, dtype=np.bool_))
    if isinstance(first, numbers.Integral):
        return Tensor(np.array(batch, dtype=np.int64))
    if isinstance(first, numbers.Real):
        return Tensor(np.array(batch, dtype=np.float64))    # PyTorch collates Python floats as float64
    if isinstance(first, str):
        return list(batch)
    if isinstance(first, dict):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(list(f)) for f in zip(*batch)]    # tuples too: PyTorch returns a list
    raise TypeError(f"default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
                    f"found {type(first)}")


def default_convert(data):
    """What a DataLoader with batch_size=None does to each sample (PyTorch's default_convert): numpy
    arrays and scalars become tensors, tuples become lists (namedtuples stay), containers are walked."""
    if isinstance(data, (np.ndarray, np.generic)) and data.dtype.kind in "biuf":
        return Tensor(np.asarray(data))
    if isinstance(data, dict):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, (tuple, list)):
        return [default_convert(d) for d in data]
    return data


class DataLoader:
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool = False, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, generator=None, **_ignored):
        if sampler is not None or batch_sampler is not None:
            from engine.errors import UnsupportedError
            raise UnsupportedError("DataLoader(sampler=..., batch_sampler=...) is not supported by Dagscope; "
                                   "use batch_size, shuffle and drop_last.")
        self.dataset, self.batch_size, self.shuffle = dataset, batch_size, shuffle
        self.drop_last, self.num_workers, self.generator = drop_last, num_workers, generator
        self.collate_fn = collate_fn or (default_convert if batch_size is None else default_collate)

    def __len__(self) -> int:
        n = len(self.dataset)
        if self.batch_size is None:
            return n
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)

    def __iter__(self):
        n = len(self.dataset)
        # Each pass draws the base seed PyTorch gives its workers, then (shuffling) RandomSampler draws a
        # seed for a fresh generator and permutes with it, unless the loader was given a generator.
        creation.rng(self.generator).random_int64()
        if self.shuffle:
            sampler = self.generator or Generator().manual_seed(creation.rng().random_int64())
            order = sampler.permutation(n)
        else:
            order = np.arange(n)
        if self.batch_size is None:
            for i in order:
                yield self.collate_fn(self.dataset[int(i)])
            return
        for start in range(0, n, self.batch_size):
            idx = order[start:start + self.batch_size]
            if len(idx) < self.batch_size and self.drop_last:
                return
            yield self._batch(idx)

    def _batch(self, idx: np.ndarray):
        if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
            return [Tensor(t.array[idx]) for t in self.dataset.tensors]    # one gather per field
        return self.collate_fn([self.dataset[int(i)] for i in idx])


__getattr__ = _unsupported_getattr("torch.utils.data", globals())
