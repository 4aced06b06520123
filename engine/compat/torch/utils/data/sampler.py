"""`torch.utils.data.sampler`: the index samplers a DataLoader draws from, each drawing its random
numbers from the generators as PyTorch's do (so a seeded run visits the samples in PyTorch's order)."""
from __future__ import annotations

import numpy as np

from engine import creation
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch_class_names import TorchABCClassRepr
from engine.random_pytorch import Generator
from engine.tensor import Tensor


class Sampler(metaclass=TorchABCClassRepr):
    """Base class of the index samplers a DataLoader draws from."""

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


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
        if not isinstance(self.replacement, bool):
            raise TypeError(f"replacement should be a boolean value, but got replacement={self.replacement}")
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
        if not isinstance(num_samples, int) or isinstance(num_samples, bool) or num_samples <= 0:
            raise ValueError(f"num_samples should be a positive integer value, but got num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(f"replacement should be a boolean value, but got replacement={replacement}")
        self.weights = np.asarray(weights.array if isinstance(weights, Tensor) else weights, dtype=np.float64)
        if self.weights.ndim != 1:
            raise ValueError(f"weights should be a 1d sequence but given weights have shape {self.weights.shape}")
        self.num_samples, self.replacement, self.generator = num_samples, replacement, generator

    def __iter__(self):
        yield from creation.rng(self.generator).multinomial(self.weights, self.num_samples, self.replacement).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    def __init__(self, sampler, batch_size: int, drop_last: bool):
        if not isinstance(batch_size, int) or isinstance(batch_size, bool) or batch_size <= 0:
            raise ValueError(f"batch_size should be a positive integer value, but got batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
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


__getattr__ = _unsupported_getattr("torch.utils.data.sampler", globals())
