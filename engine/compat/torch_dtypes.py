"""torch dtypes (`torch.float32` ...) as thin names over numpy dtypes."""
from __future__ import annotations

import builtins

import numpy as np

from engine.compat.torch_class_names import TorchClassRepr
from engine.errors import UnsupportedError


class dtype(metaclass=TorchClassRepr):
    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "is_complex")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"
        self.is_signed = self.np.kind in "fi"
        self.itemsize = self.np.itemsize
        self.is_complex = False

    def __repr__(self) -> str:
        return f"torch.{self.name}"

    def __eq__(self, other) -> bool:
        return isinstance(other, dtype) and other.np == self.np

    def __hash__(self) -> int:
        return hash(self.np)


float16 = half = dtype("float16", np.float16)
float32 = float = dtype("float32", np.float32)
float64 = double = dtype("float64", np.float64)
int8 = dtype("int8", np.int8)
uint8 = dtype("uint8", np.uint8)
int16 = short = dtype("int16", np.int16)
int32 = int = dtype("int32", np.int32)
int64 = long = dtype("int64", np.int64)
bool = dtype("bool", np.bool_)



class _NoNumpyDtype(dtype):
    """A dtype PyTorch has and numpy lacks (bfloat16): the name resolves, so a program that only names it
    (nanoGPT's table of dtypes, used on a GPU) runs; a tensor of it fails as unsupported."""
    __slots__ = ()

    def __init__(self, name: str, itemsize: builtins.int):
        self.name, self.itemsize = name, itemsize
        self.is_floating_point, self.is_signed, self.is_complex = True, True, False

    @property
    def np(self):
        raise UnsupportedError(f"torch.{self.name} tensors are not supported by Dagscope: numpy, which holds its "
                               "values, has no such type. Use torch.float32 (or torch.float16).")

    def __eq__(self, other) -> builtins.bool:
        return other is self

    def __hash__(self) -> builtins.int:
        return id(self)


bfloat16 = _NoNumpyDtype("bfloat16", 2)

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool)}


def from_numpy(np_dtype) -> dtype:
    return _BY_NUMPY[np.dtype(np_dtype)]


def to_numpy(d) -> np.dtype:
    """Accepts a torch dtype, a numpy dtype or a Python type (float -> float32 as torch does)."""
    if isinstance(d, dtype):
        return d.np
    if d is builtins.float:
        return np.dtype(np.float32)
    if d is builtins.int:
        return np.dtype(np.int64)
    if d is builtins.bool:
        return np.dtype(np.bool_)
    return np.dtype(d)


class finfo(metaclass=TorchClassRepr):
    """torch.finfo: the limits of a floating dtype (float32 when none is given)."""

    def __init__(self, type: dtype = float32):
        if not type.is_floating_point:
            # (PyTorch's message names the class where it means the dtype: copied as it reads)
            raise TypeError("torch.finfo() requires a floating point input type. Use torch.iinfo to handle "
                            "'torch.finfo'")
        info = np.finfo(type.np)
        self.dtype = type.name
        self.bits = info.bits
        self.eps, self.max, self.min = (builtins.float(v) for v in (info.eps, info.max, info.min))
        self.tiny = self.smallest_normal = builtins.float(info.smallest_normal)
        self.resolution = 10.0 ** -builtins.int(info.precision)

    def __repr__(self) -> str:
        fields = ", ".join(f"{k}={getattr(self, k):.6g}" for k in ("resolution", "min", "max", "eps",
                                                                   "smallest_normal", "tiny"))
        return f"finfo({fields}, dtype={self.dtype})"


class iinfo(metaclass=TorchClassRepr):
    """torch.iinfo: the limits of an integer dtype."""

    def __init__(self, type: dtype):
        if type.is_floating_point:
            raise TypeError("torch.iinfo() requires an integer input type. Use torch.finfo to handle "
                            "'torch.iinfo'")
        if type.np == np.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        info = np.iinfo(type.np)
        self.dtype = type.name
        self.bits = info.bits
        self.min, self.max = builtins.int(info.min), builtins.int(info.max)

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
