"""dtype rules as PyTorch's: float32 by default, Python scalars are weak (they do not promote)."""
from __future__ import annotations

import numpy as np

DEFAULT_FLOAT = np.dtype(np.float32)
FLOATS = (np.dtype(np.float16), np.dtype(np.float32), np.dtype(np.float64))
_RANK = {np.dtype(np.bool_): 0, np.dtype(np.uint8): 1, np.dtype(np.int8): 1, np.dtype(np.int16): 2,
         np.dtype(np.int32): 3, np.dtype(np.int64): 4, np.dtype(np.float16): 5,
         np.dtype(np.float32): 6, np.dtype(np.float64): 7}


def is_float(dtype) -> bool:
    return np.dtype(dtype).kind == "f"


def promote(*dtypes) -> np.dtype:
    """Result dtype of tensors of these dtypes (bool < ints < floats, the widest wins)."""
    if len(dtypes) == 2 and dtypes[0] is dtypes[1] and isinstance(dtypes[0], np.dtype):
        return dtypes[0]      # the hot case: two arrays of one builtin dtype (dtype objects are singletons)
    return max((np.dtype(d) for d in dtypes), key=lambda d: _RANK.get(d, 7))


_CATEGORY = {"b": 0, "u": 1, "i": 1, "f": 2}     # bool < integers < floats


def result_type(*xs) -> np.dtype:
    """PyTorch's result dtype for tensors (arrays or Specs: anything with .dtype and .shape). A 0-d
    tensor's dtype counts only when its category is higher than every dimensioned tensor's:
    float32 vector * float64 0-d tensor -> float32, but int64 vector * float64 0-d -> float64."""
    dims = [x.dtype for x in xs if x.shape]
    if not dims or len(dims) == len(xs):
        return promote(*(x.dtype for x in xs))
    dim = promote(*dims)
    zero = promote(*(x.dtype for x in xs if not x.shape))
    return promote(dim, zero) if _CATEGORY[zero.kind] > _CATEGORY[dim.kind] else dim


def promote_with_scalar(dtype, scalar) -> np.dtype:
    """A Python scalar only lifts the category: int tensor * 2.5 -> float32 (the default float)."""
    dtype = np.dtype(dtype)
    if isinstance(scalar, bool):
        return dtype
    if isinstance(scalar, float) and not is_float(dtype):
        return DEFAULT_FLOAT
    if isinstance(scalar, int) and dtype == np.bool_:
        return np.dtype(np.int64)
    return dtype


def to_float(dtype) -> np.dtype:
    """The dtype of an op that always returns floats (exp, mean, division)."""
    return np.dtype(dtype) if is_float(dtype) else DEFAULT_FLOAT


SHORT_NAMES = {"float32": "f32", "float64": "f64", "float16": "f16", "int64": "i64", "int32": "i32",
               "int16": "i16", "int8": "i8", "uint8": "u8", "bool": "b8"}

# How PyTorch's messages name a dtype: its ScalarType ('Float', 'Long': "expected scalar type Long")
# and the C++ type of its kernels ('float', 'long int': "TensorOptions(dtype=long int, ...)").
SCALAR_TYPE_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "int64": "Long", "int32": "Int",
                     "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}
CPP_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int", "int32": "int",
                  "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool"}


def scalar_type_name(dtype) -> str:
    name = np.dtype(dtype).name
    return SCALAR_TYPE_NAMES.get(name, name)


def cpp_type_name(dtype) -> str:
    name = np.dtype(dtype).name
    return CPP_TYPE_NAMES.get(name, name)
