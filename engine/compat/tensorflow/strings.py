"""`tf.strings` (and tf.io.decode_raw): splitting and decoding string tensors, as the tensor guide does.
String tensors hold bytes (dtypes.string); these ops run eagerly on their values, never in a graph
(no registry op computes on bytes). A scalar gives a tensor, a vector a RaggedTensor of its rows."""
from __future__ import annotations

import numpy as np

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.errors import InvalidArgumentError
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.compat.tensorflow.ragged import RaggedTensor
from engine.errors import UnsupportedError


def _strings(input, what: str, any_rank: bool = False) -> np.ndarray:  # noqa: A002 - TensorFlow's argument name
    if context.building_graph() or context.state().tracing is not None:
        raise UnsupportedError(f"tf.{what} inside a tf.function or a TF1 graph is not supported by Dagscope "
                               "(eagerly it is)")
    t = convert_to_tensor(input)
    if t.dtype != dtypes.string:
        raise InvalidArgumentError(f"tf.{what} takes a string tensor, not {t.dtype.name}")
    if t.shape.rank > 1 and not any_rank:
        raise UnsupportedError(f"tf.{what} of a tensor of rank {t.shape.rank} is not supported by Dagscope "
                               "(a scalar or a vector is)")
    return t.array


def _per_string(arr: np.ndarray, pieces, dtype) -> EagerTensor | RaggedTensor:
    """pieces(bytes) -> list: a tensor for a scalar, a RaggedTensor of the rows for a vector."""
    if arr.ndim == 0:
        return EagerTensor(_array(pieces(arr[()]), dtype))
    return RaggedTensor.from_row_lists([pieces(s) for s in arr.tolist()], dtype)


def _array(values: list, dtype) -> np.ndarray:
    if dtype == dtypes.string:
        out = np.empty(len(values), dtype=object)
        out[:] = values
        return out
    return np.asarray(values, dtype=dtypes.as_dtype(dtype).np)


def split(input, sep=None, maxsplit=-1, name=None):  # noqa: A002
    """`tf.strings.split`: on `sep`, or on runs of whitespace (empty pieces dropped) without one."""
    arr = _strings(input, "strings.split")
    sep = sep.encode() if isinstance(sep, str) else sep
    return _per_string(arr, lambda s: s.split(sep, maxsplit) if sep else s.split(None, maxsplit), dtypes.string)


def bytes_split(input, name=None):  # noqa: A002
    arr = _strings(input, "strings.bytes_split")
    return _per_string(arr, lambda s: [s[i:i + 1] for i in range(len(s))], dtypes.string)


def _decode(s: bytes, encoding: str, errors: str) -> str:
    try:
        return s.decode(encoding, errors="replace" if errors == "replace" else "strict")
    except UnicodeDecodeError as exc:
        raise InvalidArgumentError(f"Invalid formatting on input string: {exc}") from None


def unicode_split(input, input_encoding, errors="replace", replacement_char=65533, name=None):  # noqa: A002
    arr = _strings(input, "strings.unicode_split")
    return _per_string(arr, lambda s: [c.encode(input_encoding) for c in _decode(s, input_encoding, errors)],
                       dtypes.string)


def unicode_decode(input, input_encoding, errors="replace", replacement_char=65533,  # noqa: A002
                   replace_control_characters=False, name=None):
    arr = _strings(input, "strings.unicode_decode")
    return _per_string(arr, lambda s: [ord(c) for c in _decode(s, input_encoding, errors)], dtypes.int32)


def to_number(string_tensor, out_type=dtypes.float32, name=None):
    """`tf.strings.to_number`, of any shape."""
    arr = _strings(string_tensor, "strings.to_number", any_rank=True)
    target = dtypes.as_dtype(out_type)
    convert = float if target.is_floating else int

    def number(s: bytes):
        try:
            return convert(s.decode())
        except (ValueError, UnicodeDecodeError):
            text = s.decode(errors="replace")
            raise InvalidArgumentError(f"StringToNumberOp could not correctly convert string: {text} "
                                       "[Op:StringToNumber]") from None
    return EagerTensor(np.asarray([number(s) for s in arr.reshape(-1).tolist()], target.np).reshape(arr.shape))


def decode_raw(input_bytes, out_type, little_endian=True, fixed_length=None, name=None):
    """`tf.io.decode_raw`: a string's bytes read as numbers of `out_type`."""
    arr = _strings(input_bytes, "io.decode_raw")
    target = dtypes.as_dtype(out_type).np.newbyteorder("<" if little_endian else ">")
    rows = [np.frombuffer(s, dtype=target).astype(target.newbyteorder("="), copy=True)
            for s in arr.reshape(-1).tolist()]
    if arr.ndim == 0:
        return EagerTensor(rows[0])
    if len({len(r) for r in rows}) > 1:
        raise InvalidArgumentError("DecodeRaw requires input strings to all be the same size [Op:DecodeRaw]")
    return EagerTensor(np.stack(rows) if rows else np.zeros((0, 0), target.newbyteorder("=")))


__getattr__ = unsupported_names("tf.strings", globals())
