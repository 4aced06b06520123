"""TF2 eager tensors: Dagscope Tensors that look like TensorFlow's (`tf.Tensor(5, shape=(), dtype=int32)`).

An EagerTensor *is* an engine Tensor (same object layout; only the class differs), so engine ops,
autograd and the recorder treat TF programs exactly like PyTorch-style ones. What changes is the
surface: TF's shape/dtype objects, TF's printing, `.numpy()`, and operators with TF's dtype rules
(no implicit promotion: int32 + float32 is an error, not a float). The operators are the TF ops of
ops.py and array_ops.py, a layer above: operators.py installs them on EagerTensor, as TensorFlow's
math_ops installs its own on its Tensor class.
"""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes
from engine.errors import UnsupportedError
from engine.tensor import Tensor

CPU = "/job:localhost/replica:0/task:0/device:CPU:0"


def numpy_text(arr: np.ndarray, is_repr: bool = False) -> str:
    """How TF shows a tensor's values: numpy's str (print) or repr, on a new line when multi-line."""
    if arr.ndim == 0:
        text = str(arr[()])          # numpy scalars: `5`, `2.5`, `True`
    else:
        text = repr(arr) if is_repr else str(arr)
    return "\n" + text if "\n" in text else text


class EagerTensor(Tensor):
    __slots__ = ()

    # ---- TensorFlow's view of the tensor ----
    @property
    def shape(self) -> dtypes.TensorShape:
        return dtypes.TensorShape(self.array.shape)

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.as_dtype(self.array.dtype)

    @property
    def device(self) -> str:
        return CPU

    @property
    def name(self):
        raise AttributeError("Tensor.name is undefined when eager execution is enabled.")

    def get_shape(self) -> dtypes.TensorShape:
        return self.shape

    def numpy(self):
        """A copy of the values (a numpy scalar for a 0-d tensor, as TF returns)."""
        return self.array[()] if self.array.ndim == 0 else self.array.copy()

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.array, dtype=dtype)

    def __repr__(self) -> str:
        return (f"<tf.Tensor: shape={self.shape}, dtype={self.dtype.name}, "
                f"numpy={numpy_text(self.array, is_repr=True)}>")

    def __str__(self) -> str:
        return f"tf.Tensor({numpy_text(self.array)}, shape={self.shape}, dtype={self.dtype.name})"

    def __format__(self, spec: str) -> str:
        if self.array.ndim == 0:
            return format(self.array[()], spec)
        return format(str(self), spec)

    def __bool__(self) -> bool:
        if self.array.size != 1:
            raise ValueError("The truth value of an array with more than one element is ambiguous. "
                             "Use a.any() or a.all()")
        return Tensor.__bool__(self)      # tells capture that Python read a value (a frozen branch)

    def __float__(self) -> float:
        return float(Tensor.item(self))

    def __int__(self) -> int:
        return int(Tensor.item(self))

    def __index__(self) -> int:
        if self.array.dtype.kind not in "iub":
            raise TypeError("Only integer tensors of a single element can be converted to an index.")
        return int(Tensor.item(self))

    __hash__ = Tensor.__hash__      # TF raises here ("use tensor.ref()"); engine internals key by tensor

    def __setitem__(self, key, value):
        raise TypeError("'tensorflow.python.framework.ops.EagerTensor' object does not support item assignment "
                        "(TensorFlow tensors are immutable: use a tf.Variable, or tf.where / tf.concat)")


# The engine Tensor's PyTorch-style methods (x.sum(), x.add_(...), x.T ...) are not TensorFlow's: a
# TF tensor has none of them, and in-place ones would break TF's immutable tensors. They fail as in
# TensorFlow. Kept: what TF tensors also have, and the state autograd and the recorder read.
_TF_TENSOR_SURFACE = {"numpy", "shape", "dtype", "ndim", "device"}
_ENGINE_STATE = {"array", "requires_grad", "grad", "grad_fn", "is_leaf"}


def _not_in_tensorflow(name: str) -> property:
    def get(self):
        raise AttributeError(f"'tensorflow.python.framework.ops.EagerTensor' object has no attribute '{name}' "
                             f"(x.{name} is PyTorch-style; TensorFlow uses functions such as tf.reduce_sum(x))")
    return property(get)


for _name in dir(Tensor):
    if not _name.startswith("_") and _name not in _TF_TENSOR_SURFACE | _ENGINE_STATE \
            and _name not in EagerTensor.__dict__:
        setattr(EagerTensor, _name, _not_in_tensorflow(_name))


def as_eager(t: Tensor) -> EagerTensor:
    """View an engine Tensor (an op's output, a capture's stand-in) as an EagerTensor, in place:
    the object stays the one autograd and the recorder know, only its Python surface changes."""
    if type(t) is EagerTensor:          # the common case: one already seen
        return t
    if type(t) is Tensor:
        t.__class__ = EagerTensor
    elif not isinstance(t, EagerTensor):
        raise UnsupportedError(f"a {type(t).__name__} (PyTorch-style) cannot be used in TensorFlow ops; convert it "
                               "with tf.constant(t.detach().numpy()) first")
    return t


def from_numpy(arr: np.ndarray) -> EagerTensor:
    return EagerTensor(np.asarray(arr))


# ---- Python values -> arrays with TensorFlow's dtype rules -------------------------------------

_INT32_MIN, _INT32_MAX = int(np.iinfo(np.int32).min), int(np.iinfo(np.int32).max)


def infer_array(value, dtype: dtypes.DType | None = None) -> np.ndarray:
    """`tf.constant`'s conversion: Python ints -> int32, floats -> float32, numpy keeps its dtype.

    With `dtype`, values are converted to it; a float that is not a whole number refuses to
    become an integer (TF's "Cannot convert 1.5 to EagerTensor of dtype int32")."""
    if type(value) is float:               # the common case (`lr * grad`), without numpy's reductions
        arr = np.asarray(value, np.float32)
    elif type(value) is int:
        arr = np.asarray(value, np.int32 if _INT32_MIN <= value <= _INT32_MAX else np.int64)
    elif isinstance(value, Tensor):
        arr = value.array
    elif isinstance(value, (np.ndarray, np.generic)):
        arr = _strings_as_bytes(np.asarray(value))
    else:
        try:
            arr = np.asarray(_unwrap(value))
        except ValueError:          # numpy's "inhomogeneous shape": a ragged list
            raise ValueError("Can't convert non-rectangular Python sequence to Tensor.") from None
        if arr.dtype.kind == "f":
            arr = arr.astype(np.float32)
        elif arr.dtype.kind in "iu":
            arr = arr.astype(np.int32 if arr.size == 0 or _INT32_MIN <= arr.min() and arr.max() <= _INT32_MAX
                             else np.int64)
        else:
            arr = _strings_as_bytes(arr)
    if arr.dtype.kind not in "fiubcO":
        raise UnsupportedError(f"tensors of {arr.dtype} values are not supported by Dagscope (numbers, booleans, "
                               "complex numbers and strings are)")
    if dtype is None:
        return arr
    target = dtypes.as_dtype(dtype).np
    if (target.kind == "O") != (arr.dtype.kind == "O") or (target.kind in "fiub" and arr.dtype.kind == "c"):
        raise TypeError(f"Cannot convert {_short(value)} to EagerTensor of dtype {dtypes.as_dtype(dtype).name}")
    if target.kind in "iub" and arr.dtype.kind == "f" and not np.all(np.isfinite(arr) & (arr == np.round(arr))):
        raise TypeError(f"Cannot convert {_short(value)} to EagerTensor of dtype {dtypes.as_dtype(dtype).name}")
    return arr.astype(target, copy=False)


def _strings_as_bytes(arr: np.ndarray) -> np.ndarray:
    """Text as TensorFlow holds it: UTF-8 bytes, in an array of objects (numpy's fixed-width string
    arrays would pad and truncate). Arrays of other objects are refused, as TF refuses them."""
    if arr.dtype.kind == "U":
        return np.array([s.encode("utf-8") for s in arr.reshape(-1).tolist()] or [], dtype=object).reshape(arr.shape)
    if arr.dtype.kind == "S":
        return arr.astype(object)
    if arr.dtype.kind == "O":
        if not all(isinstance(v, bytes) for v in arr.reshape(-1).tolist()):
            kinds = sorted({type(v).__name__ for v in arr.reshape(-1).tolist()})
            raise ValueError(f"Attempt to convert a value with an unsupported type ({', '.join(kinds)}) to a Tensor.")
    return arr


def _unwrap(value):
    if isinstance(value, Tensor):
        return value.array
    if isinstance(value, (list, tuple)):
        return [_unwrap(v) for v in value]
    if hasattr(value, "_dagscope_value"):       # tf.Variable
        return value._dagscope_value().array
    return value


def _short(value) -> str:
    text = repr(value)
    return text if len(text) < 60 else text[:57] + "..."
