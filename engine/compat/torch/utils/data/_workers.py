"""A DataLoader's workers, run in the run's own process but with what each of PyTorch's worker
processes has of its own: its random state (torch's default generator seeded with base_seed + id,
Python's `random` likewise, numpy's global state with PyTorch's _generate_state), its WorkerInfo
for get_worker_info(), and, for an iterable dataset, its own copy of the dataset and iterator.

So a dataset that draws random numbers (an augmentation) draws what it would in PyTorch's worker,
and the run's own stream is left as PyTorch leaves the main process's; and the batches come in
the order PyTorch's loader delivers them: batch k from worker k % num_workers (map-style), or round
robin over the workers still running (iterable-style, each worker iterating its copy)."""
from __future__ import annotations

import random

import numpy as np

from engine import creation
from engine.random_pytorch import Generator

_current = None


def get_worker_info():
    """The WorkerInfo of the worker running now, or None in the main process (as in PyTorch)."""
    return _current


class WorkerInfo:
    _KEYS = ("id", "num_workers", "seed", "dataset")

    def __init__(self, **kwargs):
        for key in self._KEYS:
            object.__setattr__(self, key, kwargs[key])

    def __setattr__(self, key, value):
        raise RuntimeError(f"Cannot assign attributes to {self.__class__.__name__} objects")

    def __repr__(self) -> str:
        return f"{self.__class__.__name__}({', '.join(f'{k}={getattr(self, k)}' for k in self._KEYS)})"


def generate_state(base_seed: int, worker_id: int) -> list[int]:
    """PyTorch's _generate_state: numpy's seed for a worker (SeedSequence's hash and mix, 4 words)."""
    mask = 0xFFFFFFFF
    hash_a = [0x43B0D7E5]

    def hash_(value):
        value = (value ^ hash_a[0]) & mask
        hash_a[0] = (hash_a[0] * 0x931E8875) & mask
        value = (value * hash_a[0]) & mask
        return (value ^ (value >> 16)) & mask

    def mix(x, y):
        result = (((0xCA01F9DD * x) & mask) - ((0x4973F715 * y) & mask)) & mask
        return (result ^ (result >> 16)) & mask

    pool = [hash_(e) for e in (worker_id, base_seed & mask, base_seed >> 32, 0)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hash_(pool[src]))
    hash_b, state = 0x8B51F9DD, []
    for value in pool:
        value = (value ^ hash_b) & mask
        hash_b = (hash_b * 0x58F38DED) & mask
        value = (value * hash_b) & mask
        state.append((value ^ (value >> 16)) & mask)
    return state


def _torch_fields(generator: Generator) -> tuple:
    return generator._seed, generator._bits, generator._next_normal


def _set_torch_fields(generator: Generator, fields: tuple) -> None:
    generator._seed, generator._bits, generator._next_normal = fields


class Worker:
    """One worker's state; `with worker:` runs code as that worker, then restores the run's."""

    def __init__(self, worker_id: int, num_workers: int, base_seed: int, dataset, init_fn):
        seed = base_seed + worker_id
        self.torch = _torch_fields(Generator().manual_seed(seed))
        self.python = random.Random(seed).getstate()
        self.numpy = np.random.RandomState(generate_state(base_seed, worker_id)).get_state()
        self.info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        self.samples, self.ended = None, False     # an iterable dataset's iterator in this worker, and its end
        self._saved = None
        if init_fn is not None:
            with self:
                init_fn(worker_id)

    def __enter__(self):
        global _current
        generator = creation.rng()
        self._saved = (_torch_fields(generator), random.getstate(), np.random.get_state(), _current)
        _set_torch_fields(generator, self.torch)
        random.setstate(self.python)
        np.random.set_state(self.numpy)
        _current = self.info
        return self

    def __exit__(self, *exc) -> None:
        global _current
        generator = creation.rng()
        self.torch, self.python, self.numpy = _torch_fields(generator), random.getstate(), np.random.get_state()
        torch_fields, python, numpy_state, _current = self._saved
        _set_torch_fields(generator, torch_fields)
        random.setstate(python)
        np.random.set_state(numpy_state)
        self._saved = None
