"""torch.Tensor and the legacy typed classes (FloatTensor, LongTensor...): `isinstance` checks against
engine tensors, and calling one builds a tensor as PyTorch's legacy constructors do —
`torch.Tensor([1, 2])` is float32 `tensor([1., 2.])`, `torch.Tensor(2, 3)` a 2x3 float tensor —
where calling the engine's Tensor class directly would keep numpy's int64 and print a wrong result."""
from __future__ import annotations

import numpy as np

from engine.compat.torch_size import Size
from engine.ops.dtypes import cpp_type_name
from engine.tensor import Tensor as EngineTensor


class _TensorType(type):
    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, EngineTensor) and (cls._dtype is None or obj.array.dtype == cls._dtype)

    def __subclasscheck__(cls, sub) -> bool:
        return isinstance(sub, type) and issubclass(sub, EngineTensor) and cls._dtype is None

    def __call__(cls, *args, **kwargs):
        if kwargs:
            raise TypeError(f"new() received an invalid combination of arguments - got unexpected keyword "
                            f"arguments {', '.join(kwargs)}")
        dtype = np.dtype(np.float32) if cls._dtype is None else cls._dtype
        if not args:
            return EngineTensor(np.zeros((0,), dtype))
        if all(isinstance(a, (int, np.integer)) and not isinstance(a, bool) for a in args) or \
                (len(args) == 1 and isinstance(args[0], Size)):
            shape = tuple(int(s) for s in (tuple(args[0]) if isinstance(args[0], Size) else args))
            negative = [s for s in shape if s < 0]
            if negative:
                raise RuntimeError(f"Trying to create tensor with negative dimension {negative[0]}: {list(shape)}")
            return EngineTensor(np.zeros(shape, dtype))   # uninitialized in PyTorch
        if len(args) == 1 and isinstance(args[0], EngineTensor):
            # torch.Tensor(t) is t's data itself (sharing memory); a typed class wants t's dtype.
            if cls._dtype is not None and args[0].array.dtype != cls._dtype:
                raise TypeError(f"expected {_options(cls._dtype)} (got {_options(args[0].array.dtype)})")
            return EngineTensor(args[0].array)
        if len(args) == 1 and isinstance(args[0], (bool, float, np.floating)):
            raise TypeError(f"new(): data must be a sequence (got {type(args[0]).__name__})")
        if len(args) == 1:
            return EngineTensor(np.array(_unwrap(args[0]), dtype=dtype))
        raise TypeError(f"new() received an invalid combination of arguments - got ({len(args)} values)")

    def __getattr__(cls, name: str):
        return getattr(EngineTensor, name)       # torch.Tensor.add etc. are the methods

    def __repr__(cls) -> str:
        return f"<class 'torch.{cls.__name__}'>"



def _options(dtype) -> str:
    """How PyTorch's error names a CPU dtype: TensorOptions(dtype=long int, ...)."""
    return (f"TensorOptions(dtype={cpp_type_name(dtype)}, device=cpu, layout=Strided, "
            "requires_grad=false (default), pinned_memory=false (default), memory_format=(nullopt))")


def _unwrap(data):
    if isinstance(data, EngineTensor):
        return data.array
    if isinstance(data, (list, tuple)):
        return [_unwrap(d) for d in data]
    return data


def _typed(name: str, dtype) -> type:
    return _TensorType(name, (), {"_dtype": None if dtype is None else np.dtype(dtype), "__module__": "torch"})


Tensor = _typed("Tensor", None)
FloatTensor = _typed("FloatTensor", np.float32)
DoubleTensor = _typed("DoubleTensor", np.float64)
HalfTensor = _typed("HalfTensor", np.float16)
LongTensor = _typed("LongTensor", np.int64)
IntTensor = _typed("IntTensor", np.int32)
ShortTensor = _typed("ShortTensor", np.int16)
ByteTensor = _typed("ByteTensor", np.uint8)
CharTensor = _typed("CharTensor", np.int8)
BoolTensor = _typed("BoolTensor", np.bool_)
