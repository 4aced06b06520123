"""`torch.utils.data`: datasets (map-style and iterable), samplers, DataLoader (batching, shuffling,
drop_last, PyTorch's default collate) and random_split, drawing from the generators as PyTorch does
(so a seeded run shuffles and splits the same way), in the modules real code imports them from
(`torch.utils.data.dataset`, `.sampler`, `.dataloader`). One process: `num_workers` is accepted."""
from engine.compat.torch._surface import unsupported_getattr as _unsupported_getattr
from engine.compat.torch.utils.data import dataloader, dataset, sampler  # noqa: F401
from engine.compat.torch.utils.data.dataloader import (DataLoader, default_collate, default_convert,  # noqa: F401
                                                       get_worker_info)
from engine.compat.torch.utils.data.dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset,  # noqa: F401
                                                    StackDataset, Subset, TensorDataset, random_split)
from engine.compat.torch.utils.data.sampler import (BatchSampler, RandomSampler, Sampler,  # noqa: F401
                                                    SequentialSampler, SubsetRandomSampler, WeightedRandomSampler)

__getattr__ = _unsupported_getattr("torch.utils.data", globals())
