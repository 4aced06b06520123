"""torch dtypes (`torch.float32` ...) as thin names over numpy dtypes."""
from __future__ import annotations

import numpy as np


class dtype:
    __slots__ = ("name", "np", "is_floating_point")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.np = np.dtype(np_dtype)
        self.is_floating_point = self.np.kind == "f"

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

_BY_NUMPY = {d.np: d for d in (float16, float32, float64, int8, uint8, int16, int32, int64, bool)}


def from_numpy(np_dtype) -> dtype:
    return _BY_NUMPY[np.dtype(np_dtype)]


def to_numpy(d) -> np.dtype:
    """Accepts a torch dtype, a numpy dtype or a Python type (float -> float32 as torch does)."""
    import builtins
    if isinstance(d, dtype):
        return d.np
    if d is builtins.float:
        return np.dtype(np.float32)
    if d is builtins.int:
        return np.dtype(np.int64)
    if d is builtins.bool:
        return np.dtype(np.bool_)
    return np.dtype(d)
