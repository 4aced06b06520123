"""`tf.TensorArray`: a list of same-dtype, same-shape tensors, written by index and read back or stacked.

As TensorFlow's eager TensorArray: `write` stores the value and returns the array (reassigning the
result, as graph code must, works too); unwritten elements read as zeros once the element shape
is known; `stack` is one tf.stack of the elements, so a GradientTape differentiates through it.
Inside a tf.function a loop over a Python range or a constant tf.range unrolls, so its writes are
graph values; a loop over `tf.range(n)` with n computed in the function carries only tensors
(Dagscope's graphs have fixed shapes, and such an array's size is known only when it runs).
"""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import array_ops, dtypes
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.errors import InvalidArgumentError, OutOfRangeError
from engine.compat.tensorflow.ops import _static, convert_to_tensor


class TensorArray:
    def __init__(self, dtype, size=None, dynamic_size=None, clear_after_read=None, tensor_array_name=None,
                 handle=None, flow=None, infer_shape=True, element_shape=None, colocate_with_first_write_call=True,
                 name=None):
        self._dtype = dtypes.as_dtype(dtype)
        self._dynamic_size = bool(dynamic_size)
        self._slots: list = [None] * int(_static(size if size is not None else 0))
        self._element_shape = dtypes.TensorShape(element_shape)
        self._infer_shape = infer_shape

    # ---- properties -------------------------------------------------------------------------------------
    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def element_shape(self) -> dtypes.TensorShape:
        return self._element_shape

    @property
    def dynamic_size(self) -> bool:
        return self._dynamic_size

    def size(self, name=None) -> EagerTensor:
        return EagerTensor(np.asarray(len(self._slots), np.int32))

    # ---- writing ------------------------------------------------------------------------------------------
    def write(self, index, value, name=None) -> "TensorArray":
        i = int(_static(index))
        if i < 0:
            raise InvalidArgumentError(f"Tried to write to index {i} but array is not resizeable and size is: "
                                       f"{len(self._slots)} ")
        if i >= len(self._slots):
            if not self._dynamic_size:
                raise OutOfRangeError(f"Tried to write to index {i} but array is not resizeable and size is: "
                                      f"{len(self._slots)} ")
            self._slots.extend([None] * (i + 1 - len(self._slots)))
        value = self._converted(value)
        self._check_shape(value)
        self._slots[i] = value
        return self

    def unstack(self, value, name=None) -> "TensorArray":
        value = self._converted(value)
        rows = value.shape[0] if value.shape.rank else 0
        if rows > len(self._slots) and not self._dynamic_size:
            raise InvalidArgumentError(f"Tried to unstack {rows} elements into a TensorArray of size "
                                       f"{len(self._slots)} that is not resizeable")
        for i in range(rows):
            self.write(i, array_ops.gather_first(value, i))
        return self

    def scatter(self, indices, value, name=None) -> "TensorArray":
        value = self._converted(value)
        for row, i in enumerate(np.asarray(_static(indices)).reshape(-1)):
            self.write(int(i), array_ops.gather_first(value, row))
        return self

    def _converted(self, value):
        if hasattr(value, "_dagscope_value"):
            value = value._dagscope_value()
        t = convert_to_tensor(value, dtype=None if hasattr(value, "array") else self._dtype)
        if t.dtype != self._dtype:
            raise InvalidArgumentError(f"TensorArray dtype is {self._dtype.name} but Op is trying to write dtype "
                                       f"{t.dtype.name}")
        return t

    def _check_shape(self, value) -> None:
        if not self._element_shape.is_compatible_with(value.shape):
            raise ValueError(f"Incompatible shape for value ({value.shape}), expected ({self._element_shape})")
        if self._infer_shape:
            self._element_shape = dtypes.TensorShape(value.shape)

    # ---- reading ------------------------------------------------------------------------------------------
    def read(self, index, name=None):
        i = int(_static(index))
        if not 0 <= i < len(self._slots):
            raise OutOfRangeError(f"Tried to read from index {i} but array size is: {len(self._slots)} ")
        return self._element(i)

    def _element(self, i: int):
        if self._slots[i] is not None:
            return self._slots[i]
        if not self._element_shape.is_fully_defined():
            raise ValueError("Cannot convert a partially known TensorShape <unknown> to a Tensor. (TensorArray "
                             f"element {i} was never written and the element shape is not known)")
        return EagerTensor(np.zeros(self._element_shape.as_list(), self._dtype.np))

    def stack(self, name=None):
        if not self._slots:
            shape = [0] + (self._element_shape.as_list() if self._element_shape.is_fully_defined() else [])
            return EagerTensor(np.zeros(shape, self._dtype.np))
        return array_ops.stack([self._element(i) for i in range(len(self._slots))])

    def gather(self, indices, name=None):
        return array_ops.stack([self.read(int(i)) for i in np.asarray(_static(indices)).reshape(-1)])

    def concat(self, name=None):
        if not self._slots:
            return EagerTensor(np.zeros([0], self._dtype.np))
        return array_ops.concat([self._element(i) for i in range(len(self._slots))], axis=0)

    def identity(self) -> "TensorArray":
        return self

    def mark_used(self) -> None:
        pass

    def close(self, name=None) -> None:
        self._slots = []

    def __repr__(self) -> str:
        return f"<tensorflow.python.ops.tensor_array_ops.TensorArray object at {id(self):#x}>"
