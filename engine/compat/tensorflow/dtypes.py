"""TensorFlow's dtypes (`tf.float32`, printed `<dtype: 'float32'>`) and `tf.TensorShape`, over numpy."""
from __future__ import annotations

import builtins

import numpy as np

from engine.errors import UnsupportedError


class DType:
    """A TensorFlow dtype: a name over a numpy dtype. Compares equal to its name and numpy dtype."""
    __slots__ = ("name", "as_numpy_dtype")

    def __init__(self, name: str, np_dtype):
        self.name = name
        self.as_numpy_dtype = np.dtype(np_dtype).type

    @property
    def np(self) -> np.dtype:
        return np.dtype(self.as_numpy_dtype)

    # numpy's view: `np.dtype(tf.float32)` works (numpy reads `.dtype`), and lowerings and registry
    # rules that ask a value's dtype for `.kind` / `.itemsize` work on eager tensors and IR values alike.
    @property
    def dtype(self) -> np.dtype:
        return self.np

    @property
    def kind(self) -> str:
        return self.np.kind

    @property
    def itemsize(self) -> int:
        return self.np.itemsize

    @property
    def base_dtype(self) -> "DType":
        return self

    @property
    def kernel_word(self) -> str:
        """The dtype as TensorFlow's C++ kernels word it in errors (DataTypeString): float32 is
        "float", float64 "double", float16 "half"; the others by their name."""
        return {"float32": "float", "float64": "double", "float16": "half"}.get(self.name, self.name)

    @property
    def is_floating(self) -> bool:
        return self.np.kind == "f"

    @property
    def is_complex(self) -> bool:
        return self.np.kind == "c"

    @property
    def is_integer(self) -> bool:
        return self.np.kind in "iu"

    @property
    def is_bool(self) -> bool:
        return self.np.kind == "b"

    @property
    def is_unsigned(self) -> bool:
        return self.np.kind == "u"

    @property
    def size(self) -> int:
        return self.np.itemsize

    @property
    def min(self):
        return np.finfo(self.np).min if self.is_floating else (False if self.is_bool else np.iinfo(self.np).min)

    @property
    def max(self):
        return np.finfo(self.np).max if self.is_floating else (True if self.is_bool else np.iinfo(self.np).max)

    def __repr__(self) -> str:
        return f"tf.{self.name}"

    def __str__(self) -> str:
        return f"<dtype: {self.name!r}>"

    def __eq__(self, other) -> bool:
        if isinstance(other, DType):
            return other is self or other.name == self.name
        try:
            return as_dtype(other).name == self.name
        except (TypeError, UnsupportedError):
            return False

    def __hash__(self) -> int:
        return hash(self.name)


float16 = half = DType("float16", np.float16)
float32 = DType("float32", np.float32)
float64 = double = DType("float64", np.float64)
int8 = DType("int8", np.int8)
int16 = DType("int16", np.int16)
int32 = DType("int32", np.int32)
int64 = DType("int64", np.int64)
uint8 = DType("uint8", np.uint8)
bool = DType("bool", np.bool_)  # noqa: A001 - TensorFlow's name
complex64 = DType("complex64", np.complex64)
complex128 = DType("complex128", np.complex128)
# A string tensor holds bytes (TF's strings are byte strings: tf.constant("é") holds b'\xc3\xa9'), in a
# numpy array of objects. String and complex tensors have values and no gradient (see ops.run_op).
string = DType("string", np.object_)

ALL = (float16, float32, float64, int8, int16, int32, int64, uint8, bool, complex64, complex128, string)
_BY_NAME = {d.name: d for d in ALL}
_BY_NUMPY = {d.np: d for d in ALL}
_ALIASES = {"float": float32, "double": float64, "half": float16}     # TF1 code writes placeholder("float")
_NUMPY_NAMES = {"uint16", "uint32", "uint64", "bfloat16"}   # TF has these


def as_dtype(value) -> DType:
    """`tf.as_dtype`: a DType from a DType, its name, a numpy dtype or a Python type."""
    if isinstance(value, DType):
        return value
    if isinstance(value, np.dtype) and value in _BY_NUMPY:     # the hot path: a tensor's own dtype
        return _BY_NUMPY[value]
    if value is builtins.float:
        return float32
    if value is builtins.int:
        return int32
    if value is builtins.bool:
        return bool
    if value is builtins.complex:
        return complex128
    if value is builtins.str:
        raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")
    if isinstance(value, str):
        if value in _BY_NAME or value in _ALIASES:
            return _BY_NAME.get(value) or _ALIASES[value]
        if value not in _NUMPY_NAMES:           # "int", "long", "f4": numpy would guess, TensorFlow refuses
            raise TypeError(f"Cannot convert the argument `type_value`: {value!r} to a TensorFlow DType.")
    try:
        numpy_dtype = np.dtype(value)
    except TypeError:
        raise TypeError(f"Cannot convert {value!r} to a TensorFlow DType.") from None
    if numpy_dtype.kind in "SUO":          # numpy's bytes, text and objects: TensorFlow's strings
        return string
    name = numpy_dtype.name
    if name not in _BY_NAME:
        raise UnsupportedError(f"TensorFlow dtype {name!r} is not supported by Dagscope; supported dtypes: "
                               f"{', '.join(_BY_NAME)}.")
    return _BY_NAME[name]


class TensorShape:
    """A possibly partial shape: a list of ints and None (unknown dims), or None (unknown rank)."""
    __slots__ = ("_dims",)

    def __init__(self, dims):
        if isinstance(dims, TensorShape):
            dims = dims._dims
        self._dims = None if dims is None else tuple(None if d is None else int(d) for d in dims)

    @property
    def dims(self):
        return None if self._dims is None else list(self._dims)

    @property
    def rank(self):
        return None if self._dims is None else len(self._dims)

    ndims = rank

    def as_list(self) -> list:
        if self._dims is None:
            raise ValueError("as_list() is not defined on an unknown TensorShape.")
        return list(self._dims)

    def is_fully_defined(self) -> bool:
        return self._dims is not None and None not in self._dims

    def num_elements(self):
        if not self.is_fully_defined():
            return None
        return int(np.prod(self._dims, dtype=np.int64))

    def is_compatible_with(self, other) -> bool:
        other = TensorShape(other)
        if self._dims is None or other._dims is None:
            return True
        return len(self._dims) == len(other._dims) and all(
            a is None or b is None or a == b for a, b in zip(self._dims, other._dims))

    def __len__(self) -> int:
        if self._dims is None:
            raise ValueError("Cannot take the length of shape with unknown rank.")
        return len(self._dims)

    def __iter__(self):
        if self._dims is None:
            raise ValueError("Cannot iterate over a shape with unknown rank.")
        return iter(self._dims)

    def __getitem__(self, key):
        if isinstance(key, slice):
            return TensorShape(self.as_list()[key])
        return self.as_list()[key]

    def __eq__(self, other) -> bool:
        try:
            other = TensorShape(other)
        except TypeError:
            return NotImplemented
        return self._dims == other._dims

    def __hash__(self) -> int:
        return hash(self._dims)

    def __str__(self) -> str:
        if self._dims is None:
            return "<unknown>"
        if len(self._dims) == 1:
            return f"({self._dims[0]},)"
        return "(" + ", ".join(str(d) for d in self._dims) + ")"

    def __repr__(self) -> str:
        if self._dims is None:
            return "TensorShape(None)"
        return f"TensorShape({list(self._dims)})"


def shape_text_v1(shape: TensorShape) -> str:
    """The `(?, 3)` form TF1 uses in error messages about placeholders."""
    if shape.rank is None:
        return "<unknown>"
    return "(" + ", ".join("?" if d is None else str(d) for d in shape.dims) + ("," if shape.rank == 1 else "") + ")"
