"""`torch.utils.data.dataloader`: DataLoader, PyTorch's default collate and convert, get_worker_info.

One process: with `num_workers` > 0 the samples are still loaded in the run itself, but as each of
PyTorch's workers would load them, with its own random state and dataset copy (_workers.py), and
in the order PyTorch's loader delivers them. Each pass draws the workers' base seed as PyTorch
does (once, with persistent_workers), so a seeded run shuffles, augments and continues as PyTorch's."""
from __future__ import annotations

import collections.abc
import copy
import itertools
import re
import warnings

import numpy as np

from engine import creation
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.utils.data._workers import Worker, WorkerInfo, get_worker_info  # noqa: F401
from engine.compat.torch.utils.data.dataset import IterableDataset, TensorDataset
from engine.compat.torch.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.tensor import Tensor

_COLLATE_ERROR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"
_STR_OR_OBJECT = re.compile(r"[SaUO]")


def _stack(arrays: list[np.ndarray]) -> Tensor:
    for i, a in enumerate(arrays[1:], 1):
        if a.shape != arrays[0].shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(arrays[0].shape)} "
                               f"at entry 0 and {list(a.shape)} at entry {i}")
    return Tensor(np.stack(arrays))


def default_collate(batch):
    """Stack a list of samples into a batch, field by field, as PyTorch's default_collate: tensors and
    numpy arrays stacked, Python floats as float64, ints as int64 (bools as bool), numpy scalars in
    their dtype, strings left as a list; dicts, namedtuples, tuples (as lists) and lists walked."""
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack([b.array for b in batch])
    if isinstance(elem, np.ndarray):
        if _STR_OR_OBJECT.search(elem.dtype.str):
            raise TypeError(_COLLATE_ERROR.format(elem.dtype))
        return _stack([np.asarray(b) for b in batch])
    if isinstance(elem, (np.bool_, np.number, np.object_)):
        return Tensor(np.asarray(batch))
    if isinstance(elem, float):
        return Tensor(np.array(batch, dtype=np.float64))
    if isinstance(elem, int):
        return Tensor(np.array(batch, dtype=np.bool_ if all(type(b) is bool for b in batch) else np.int64))
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, collections.abc.Mapping):
        collated = {key: default_collate([d[key] for d in batch]) for key in elem}
        if isinstance(elem, collections.abc.MutableMapping):
            clone = copy.copy(elem)
            clone.update(collated)
            return clone
        try:
            return type(elem)(collated)
        except TypeError:
            return collated
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):       # a namedtuple stays one
        return type(elem)(*(default_collate(s) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        if any(len(b) != len(elem) for b in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        fields = [default_collate(s) for s in zip(*batch)]   # tuples: strings stay one
        if isinstance(elem, tuple):
            return fields                                           # PyTorch returns tuples as lists
        if isinstance(elem, collections.abc.MutableSequence):
            clone = copy.copy(elem)
            for i, f in enumerate(fields):
                clone[i] = f
            return clone
        try:
            return type(elem)(fields)
        except TypeError:
            return fields
    raise TypeError(_COLLATE_ERROR.format(type(elem)))


def default_convert(data):
    """What a DataLoader with batch_size=None does to each sample (PyTorch's default_convert): numpy
    arrays and scalars become tensors, tuples become lists (namedtuples stay), containers are walked."""
    if isinstance(data, Tensor):
        return data
    if isinstance(data, (np.ndarray, np.generic)):
        return data if _STR_OR_OBJECT.search(data.dtype.str) else Tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return [default_convert(d) for d in data]
    return data


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: the dataset's own iterator gives the order."""

    def __iter__(self):
        while True:
            yield None


class DataLoader(metaclass=TorchABCClassRepr):
    def __init__(self, dataset, batch_size: int | None = 1, shuffle: bool | None = None, sampler=None,
                 batch_sampler=None, num_workers: int = 0, collate_fn=None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn=None, multiprocessing_context=None,
                 generator=None, *, prefetch_factor: int | None = None, persistent_workers: bool = False,
                 pin_memory_device: str = "", in_order: bool = True):
        if not isinstance(num_workers, int) or num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set prefetch_factor to None.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            if shuffle not in (False, None):
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, "
                                 f"but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, "
                                 "and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._iterable:
                sampler = _InfiniteConstantSampler()
            else:
                sampler = RandomSampler(dataset, generator=generator) if shuffle else SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset, self.batch_size, self.drop_last = dataset, batch_size, drop_last
        self.sampler, self.batch_sampler = sampler, batch_sampler
        self.num_workers, self.generator, self.timeout = num_workers, generator, timeout
        self.worker_init_fn, self.pin_memory = worker_init_fn, pin_memory
        self.prefetch_factor, self.persistent_workers = prefetch_factor, persistent_workers
        self.collate_fn = collate_fn or (default_convert if batch_sampler is None else default_collate)
        self._workers: list[Worker] | None = None      # kept between passes with persistent_workers

    @property
    def _index_sampler(self):
        return self.batch_sampler if self.batch_sampler is not None else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)       # a TypeError when the dataset has no length, as in PyTorch
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler)

    def __iter__(self):
        # As PyTorch's loader iterator: the sampler's iterator first, then the workers' base seed
        # (from the loader's generator, else the default one; persistent workers keep theirs), then
        # the workers start (worker_init_fn in each); the sampler draws on its first step.
        indices = iter(self._index_sampler)
        if self.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", stacklevel=2)
        if self.num_workers == 0:
            creation.rng(self.generator).random_int64()
            return self._iterate_dataset(iter(self.dataset)) if self._iterable else self._iterate_indices(indices)
        if self._workers is None or not self.persistent_workers:
            base_seed = creation.rng(self.generator).random_int64()
            self._workers = [Worker(i, self.num_workers, base_seed, self._worker_dataset(), self.worker_init_fn)
                             for i in range(self.num_workers)]
        if self._iterable:
            return self._iterate_workers(self._workers)
        return self._iterate_indices(indices, itertools.cycle(self._workers))

    def _worker_dataset(self):
        # each of PyTorch's workers has its own copy of an iterable dataset (worker_init_fn may
        # shard it through get_worker_info().dataset); a map-style dataset is shared, not copied
        return copy.deepcopy(self.dataset) if self._iterable else self.dataset

    def _iterate_indices(self, indices, workers=None):
        for index in indices:
            if workers is None:
                yield self._load(index)
                continue
            with next(workers):
                batch = self._load(index)
            yield batch

    def _load(self, index):
        return self._fetch(index) if self.batch_sampler is not None else self.collate_fn(self.dataset[index])

    def _iterate_dataset(self, samples):
        while True:
            batch, ended = self._next_batch(samples)
            if batch is None:
                return
            yield batch
            if ended:
                return

    def _next_batch(self, samples) -> tuple:
        """(the next batch, or sample, of an iterable dataset's iterator, or None at its end;
        whether the iterator ended while filling it: PyTorch's fetcher asks it no more then)."""
        if self.batch_sampler is None:
            for sample in samples:
                return self.collate_fn(sample), False
            return None, True
        batch = list(itertools.islice(samples, self.batch_size))
        ended = len(batch) < self.batch_size
        if not batch or (self.drop_last and ended):
            return None, True
        return self.collate_fn(batch), ended

    def _iterate_workers(self, workers: list[Worker]):
        """Round robin over the workers still running, each iterating its own copy of the dataset
        (made when the worker starts, and again each pass with persistent workers)."""
        for worker in workers:
            with worker:
                worker.samples, worker.ended = iter(worker.info.dataset), False
        running = list(workers)
        while running:
            for worker in list(running):
                batch = None
                if not worker.ended:
                    with worker:
                        batch, worker.ended = self._next_batch(worker.samples)
                if batch is None:
                    running.remove(worker)
                    continue
                yield batch

    def _fetch(self, indices: list):
        if type(self.dataset) is TensorDataset and self.collate_fn is default_collate:
            idx = np.asarray(indices, dtype=np.int64)
            return [Tensor(t.array[idx]) for t in self.dataset.tensors]    # one gather per field
        getitems = getattr(self.dataset, "__getitems__", None)
        samples = getitems(indices) if callable(getitems) else [self.dataset[i] for i in indices]
        return self.collate_fn(samples)


__getattr__ = _unsupported_getattr("torch.utils.data.dataloader", globals())
