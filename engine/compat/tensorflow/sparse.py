"""`tf.sparse`: a SparseTensor (the values at some indices of a dense shape, zeros elsewhere) and its
dense form. It is a value, as TensorFlow's is: three tensors, printed as TF prints them."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.array_ops import fill
from engine.compat.tensorflow.index_ops import tensor_scatter_nd_update
from engine.compat.tensorflow.ops import cast, convert_to_tensor
from engine.errors import UnsupportedError


class SparseTensor:
    """`tf.sparse.SparseTensor(indices, values, dense_shape)`: indices and dense_shape are int64."""

    def __init__(self, indices, values, dense_shape):
        self.indices = cast(convert_to_tensor(indices, dtype_hint=dtypes.int64), dtypes.int64)
        self.values = convert_to_tensor(values)
        self.dense_shape = cast(convert_to_tensor(dense_shape, dtype_hint=dtypes.int64), dtypes.int64)
        for what, t in (("indices", self.indices), ("values", self.values), ("dense_shape", self.dense_shape)):
            if not hasattr(t, "array"):
                raise UnsupportedError(f"tf.SparseTensor in a graph is not supported by Dagscope ({what} is symbolic)")
        if self.indices.shape.rank != 2 or self.values.shape.rank != 1 or \
                self.indices.shape[0] != self.values.shape[0] or self.indices.shape[1] != self.dense_shape.shape[0]:
            raise ValueError(f"SparseTensor: indices of shape {self.indices.shape} (n, rank), values of shape "
                             f"{self.values.shape} (n,) and dense_shape of shape {self.dense_shape.shape} (rank,) "
                             "do not fit together")

    @property
    def shape(self) -> dtypes.TensorShape:
        return dtypes.TensorShape(self.dense_shape.array.tolist())

    @property
    def dtype(self) -> dtypes.DType:
        return self.values.dtype

    def get_shape(self) -> dtypes.TensorShape:
        return self.shape

    def __repr__(self) -> str:
        return f"SparseTensor(indices={self.indices}, values={self.values}, dense_shape={self.dense_shape})"

    __str__ = __repr__


def to_dense(sp_input: SparseTensor, default_value=None, validate_indices=True, name=None):
    """`tf.sparse.to_dense`: `default_value` (zero) everywhere but at the indices."""
    if not isinstance(sp_input, SparseTensor):
        raise TypeError(f"Input must be a SparseTensor, not {type(sp_input).__name__}")
    values = sp_input.values
    default = np.zeros((), values.dtype.np) if default_value is None else np.asarray(default_value, values.dtype.np)
    if validate_indices:
        rows = sp_input.indices.array
        if len(np.unique(rows, axis=0)) != len(rows):
            raise UnsupportedError("tf.sparse.to_dense of a SparseTensor with a repeated index (TensorFlow's "
                                   "InvalidArgumentError) is refused by Dagscope")
    base = fill(sp_input.shape.as_list(), default)
    return tensor_scatter_nd_update(base, sp_input.indices, values, name=name)


__getattr__ = unsupported_names("tf.sparse", globals())
