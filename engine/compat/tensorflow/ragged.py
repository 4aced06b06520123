"""`tf.ragged`: a RaggedTensor of rows of different lengths (one ragged dimension, as the guides use:
`tf.ragged.constant([[0, 1, 2], [3]])`, what `tf.strings.split` of a vector gives). It is a value:
its flat values and where each row starts, printed as TensorFlow prints it; no op computes on it."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor, infer_array
from engine.errors import UnsupportedError


class RaggedTensor:
    """Rows `values[row_splits[i]:row_splits[i + 1]]`; `shape` is (rows, None)."""

    def __init__(self, values: np.ndarray, row_splits: np.ndarray):
        self._values = values
        self._splits = np.asarray(row_splits, dtype=np.int64)

    @classmethod
    def from_row_lists(cls, rows: list, dtype=None) -> "RaggedTensor":
        flat = [v for row in rows for v in row]
        values = infer_array(flat, dtype) if flat else np.zeros((0,), dtypes.as_dtype(dtype or dtypes.float32).np)
        return cls(values, np.cumsum([0] + [len(row) for row in rows]))

    @classmethod
    def from_row_splits(cls, values, row_splits, name=None, validate=True) -> "RaggedTensor":
        return cls(np.asarray(getattr(values, "array", values)), np.asarray(getattr(row_splits, "array", row_splits)))

    @property
    def values(self) -> EagerTensor:
        return EagerTensor(self._values.copy())

    flat_values = values

    @property
    def row_splits(self) -> EagerTensor:
        return EagerTensor(self._splits.copy())

    @property
    def dtype(self) -> dtypes.DType:
        return dtypes.as_dtype(self._values.dtype)

    @property
    def shape(self) -> dtypes.TensorShape:
        return dtypes.TensorShape([len(self._splits) - 1, None])

    @property
    def ragged_rank(self) -> int:
        return 1

    def nrows(self, out_type=dtypes.int64) -> EagerTensor:
        return EagerTensor(np.asarray(len(self._splits) - 1, dtypes.as_dtype(out_type).np))

    def row_lengths(self) -> EagerTensor:
        return EagerTensor(np.diff(self._splits))

    def to_list(self) -> list:
        return [self._values[a:b].tolist() for a, b in zip(self._splits[:-1], self._splits[1:])]

    def numpy(self) -> np.ndarray:
        rows = [self._values[a:b].copy() for a, b in zip(self._splits[:-1], self._splits[1:])]
        out = np.empty(len(rows), dtype=object)
        out[:] = rows
        return out

    def to_tensor(self, default_value=None, name=None, shape=None) -> EagerTensor:
        rows = self.to_list()
        width = max((len(r) for r in rows), default=0)
        fill = np.zeros((), self._values.dtype) if default_value is None else default_value
        out = np.full((len(rows), width), fill, dtype=self._values.dtype)
        for i, row in enumerate(rows):
            out[i, :len(row)] = row
        return EagerTensor(out)

    def __repr__(self) -> str:
        return f"<tf.RaggedTensor {self.to_list()}>"

    __str__ = __repr__


def constant(pylist, dtype=None, ragged_rank=None, inner_shape=None, name=None, row_splits_dtype=dtypes.int64):
    """`tf.ragged.constant` of a list of lists (rows of scalars)."""
    rows = list(pylist)
    if not all(isinstance(r, (list, tuple)) for r in rows) or \
            any(isinstance(v, (list, tuple)) for r in rows for v in r):
        raise UnsupportedError("tf.ragged.constant is supported by Dagscope for a list of rows of scalars "
                               "(one ragged dimension)")
    return RaggedTensor.from_row_lists(rows, dtype)


__getattr__ = unsupported_names("tf.ragged", globals())
