"""`torch.utils.data`: Dataset, TensorDataset, samplers, DataLoader (batching, shuffling, drop_last,
PyTorch's default collate) and random_split, drawing from the generators as PyTorch does (so a seeded
run shuffles and splits the same way). Single process: num_workers is ignored."""
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
        return batch            # as given: a field of a batch of tuples is then the zip tuple, as PyTorch's
    if isinstance(first, dict):
        return {k: default_collate([b[k] for b in batch]) for k in first}
    if isinstance(first, (tuple, list)):
        if any(len(b) != len(first) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        return [default_collate(f) for f in zip(*batch)]    # tuples too: PyTorch returns a list
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


class Sampler:
    """Base class of the index samplers a DataLoader draws from."""

    def __init__(self, data_source=None):
        pass


class SequentialSampler(Sampler):
    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """A permutation per pass; without its own generator it seeds a fresh one from the default generator
    each pass, as PyTorch does (so the default generator advances by one 64-bit draw)."""

    def __init__(self, data_source, replacement: bool = False, num_samples=None, generator=None):
        self.data_source, self.replacement, self._num_samples = data_source, replacement, num_samples
        self.generator = generator
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={self.num_samples}")

    @property
    def num_samples(self) -> int:
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        generator = self.generator or Generator().manual_seed(creation.rng().random_int64())
        if self.replacement:
            for start in range(0, self.num_samples, 32):      # PyTorch draws 32 indices at a time
                yield from generator.integers(0, n, min(32, self.num_samples - start)).tolist()
            return
        for _ in range(self.num_samples // n):
            yield from generator.permutation(n).tolist()
        yield from generator.permutation(n).tolist()[:self.num_samples % n]

    def __len__(self) -> int:
        return self.num_samples


class SubsetRandomSampler(Sampler):
    def __init__(self, indices, generator=None):
        self.indices, self.generator = indices, generator

    def __iter__(self):
        for i in creation.rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    def __init__(self, weights, num_samples: int, replacement: bool = True, generator=None):
        self.weights = np.asarray(weights.array if isinstance(weights, Tensor) else weights, dtype=np.float64)
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        yield from creation.rng(self.generator).multinomial(self.weights, self.num_samples, self.replacement).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size: int, drop_last: bool):
        self.sampler, self.batch_size, self.drop_last = sampler, batch_size, drop_last

    def __iter__(self):
        batch = []
        for index in self.sampler:
            batch.append(index)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)


class DataLoader:
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool = False, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, generator=None, **_ignored):
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        if sampler is None:
            sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.generator = num_workers, generator
        self.collate_fn = collate_fn or (default_convert if batch_sampler is None else default_collate)

    def __len__(self) -> int:
        return len(self.batch_sampler if self.batch_sampler is not None else self.sampler)

    def __iter__(self):
        # Each pass draws the base seed PyTorch gives its workers (from the loader's generator, else the
        # default one), then the sampler draws its own numbers.
        creation.rng(self.generator).random_int64()
        if self.batch_sampler is None:
            for i in self.sampler:
                yield self.collate_fn(self.dataset[i])
            return
        for batch in self.batch_sampler:
            yield self._batch(batch)

    def _batch(self, indices: list):
        if isinstance(self.dataset, TensorDataset) and self.collate_fn is default_collate:
            idx = np.asarray(indices, dtype=np.int64)
            return [Tensor(t.array[idx]) for t in self.dataset.tensors]    # one gather per field
        return self.collate_fn([self.dataset[i] for i in indices])


__getattr__ = _unsupported_getattr("torch.utils.data", globals())
