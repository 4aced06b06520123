"""torch.save / torch.load: pickle, with tensors stored as their values (no autograd history, as PyTorch
saves them) and PyTorch 2.6+'s weights_only=True default, which loads only tensors, containers and
plain values (a whole pickled model needs weights_only=False)."""
from __future__ import annotations

import builtins
import io
import os
import pickle

import numpy as np

from engine.compat import torch_dtypes
from engine.compat.torch_size import Size
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def _rebuild_tensor(data: bytes, dtype: str, shape: tuple, requires_grad: bool, is_parameter: bool):
    array = np.frombuffer(data, dtype=np.dtype(dtype)).reshape(shape).copy()
    if is_parameter:
        return Parameter(Tensor(array), requires_grad=requires_grad)
    tensor = Tensor(array)
    if requires_grad:
        tensor.requires_grad_(True)       # a saved non-leaf loads as a leaf, as in PyTorch
    return tensor


def _rebuild_dtype(name: str):
    return getattr(torch_dtypes, name)


class _Pickler(pickle.Pickler):
    def reducer_override(self, obj):
        if isinstance(obj, Tensor):
            array = obj.array           # (tobytes is C-ordered; ascontiguousarray would make a 0-d array 1-d)
            return _rebuild_tensor, (array.tobytes(), array.dtype.str, array.shape, obj.requires_grad,
                                     isinstance(obj, Parameter))
        if isinstance(obj, torch_dtypes.dtype):
            return _rebuild_dtype, (obj.name,)
        return NotImplemented


# What weights_only=True may rebuild: tensors, dtypes, sizes and the standard containers.
_SAFE = {(__name__, "_rebuild_tensor"), (__name__, "_rebuild_dtype"), ("collections", "OrderedDict"),
         (Size.__module__, "Size"), ("builtins", "set"), ("builtins", "frozenset"), ("builtins", "complex"),
         ("builtins", "slice"), ("copyreg", "__newobj__"), ("copyreg", "_reconstructor")}   # (their class
# argument is itself checked here)


# What the program allowed besides (torch.serialization.add_safe_globals, or inside safe_globals(...)).
_allowed: list = []


def _key(obj) -> tuple[str, str]:
    return getattr(obj, "__module__", None), getattr(obj, "__qualname__", getattr(obj, "__name__", None))


class _WeightsUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str):
        if (module, name) not in _SAFE and (module, name) not in {_key(o) for o in _allowed}:
            raise pickle.UnpicklingError(
                "Weights only load failed. This file can still be loaded, to do so you have two options, do those "
                "steps only if you trust the source of the checkpoint. \n\t(1) In PyTorch 2.6, we changed the "
                "default value of the `weights_only` argument in `torch.load` from `False` to `True`. Re-running "
                "`torch.load` with `weights_only` set to `False` will likely succeed, but it can result in "
                "arbitrary code execution. Do it only if you got the file from a trusted source.\n\t(2) "
                "Alternatively, to load with `weights_only=True` please check the recommended steps in the "
                f"following error message.\n\tWeightsUnpickler error: Unsupported global: GLOBAL {module}.{name} was "
                "not an allowed global by default.")
        return super().find_class(module, name)


def save(obj, f, pickle_module=None, pickle_protocol: int = 2, **_) -> None:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.DEFAULT_PROTOCOL).dump(obj)   # (bytes need protocol 3+)
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "wb") as handle:
            handle.write(buffer.getvalue())
    else:
        f.write(buffer.getvalue())


def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None, **_):
    if isinstance(f, (str, os.PathLike)):
        with builtins.open(f, "rb") as handle:
            data = handle.read()
    else:
        data = f.read()
    unpickler = pickle.Unpickler if weights_only is False else _WeightsUnpickler
    return unpickler(io.BytesIO(data)).load()

