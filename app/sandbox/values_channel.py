"""The run's tensor values: the side channel after the record on the child's pipe (child.py's
write_values; docs/run-record.md, "Tensor values"). Written by the same process as the pasted
code, so hostile input: every entry of the index is checked (id, dtype, shape, size), the sizes
must add up to the bytes that came, and both are bounded, before any array is made of them."""
from __future__ import annotations

import json
import math
import mmap
import re
from dataclasses import dataclass

import numpy as np

from app.sandbox.protocol import first_frame

MAX_INDEX_BYTES = 4 << 20
MAX_TENSORS = 20_000          # engine/record/values.py's ValueStore.MAX_TENSORS
MAX_DIMS = 64                 # numpy's own (NPY_MAXDIMS)
ID = re.compile(r"v[0-9]{1,6}")
PAGE = mmap.PAGESIZE
# Values in place are kept as the server's read-only mapping of the memfd, one of the process's
# vm.max_map_count (65,530) whatever its size: a run of a few bytes of values held one for the
# store's time (30 min) and 30 runs a minute per client, so a class's runs could use them all up
# (and with them every mmap, numpy's large allocations too). Fewer bytes than this are copied,
# so the store's bound by bytes bounds its mappings too (1 GB: at most 1,024).
COPY_BELOW = 1 << 20
DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                    "float16", "float32", "float64"})


class Malformed(ValueError):
    pass


@dataclass(frozen=True)
class RunValues:
    """A run's kept values: id -> (dtype name, shape, offset, nbytes) into `blob`."""
    index: dict
    blob: bytes | memoryview

    @property
    def nbytes(self) -> int:
        return len(self.blob)

    def array(self, ref: str) -> np.ndarray | None:
        entry = self.index.get(ref)
        if entry is None:
            return None
        dtype, shape, offset, nbytes = entry
        # read-only view of the kept bytes: no copy, and nothing can change them
        return np.frombuffer(self.blob, dtype=np.dtype(dtype), count=math.prod(shape), offset=offset).reshape(shape)


def parse(data: bytes | memoryview, max_bytes: int, in_place: bytes | memoryview = b"",
          resident: int = 0) -> RunValues:
    """The side channel's frames (index, then bytes), checked; Malformed says why not. The child
    writes the bytes into the values memfd its supervisor gave it (`in_place`, mapped read-only
    by the server; `resident`: the memory its written pages hold) and then sends the index frame
    alone; where it could not, the bytes follow as a second frame, and `in_place` is not read."""
    try:
        index_bytes, rest = first_frame(data)
        if len(index_bytes) > MAX_INDEX_BYTES:
            raise Malformed(f"its index is larger than {MAX_INDEX_BYTES} bytes")
        blob = None
        if rest:
            blob, trailing = first_frame(rest)
            if trailing:
                raise Malformed(f"{len(trailing)} more bytes followed it")
    except ValueError as exc:
        raise Malformed(f"a frame is incomplete ({exc})") from None
    if blob is not None and len(blob) > max_bytes:
        raise Malformed(f"{len(blob)} bytes of values, more than the {max_bytes} allowed")
    try:
        entries = json.loads(bytes(index_bytes))
    except (ValueError, RecursionError):
        raise Malformed("its index is not JSON") from None
    if not isinstance(entries, list) or len(entries) > MAX_TENSORS:
        raise Malformed(f"its index is not a list of at most {MAX_TENSORS} entries")
    index, offset = {}, 0
    for entry in entries:
        ref, dtype, shape, nbytes = _entry(entry)
        if ref in index:
            raise Malformed(f"the id {ref} comes twice")
        index[ref] = (dtype, shape, offset, nbytes)
        offset += nbytes
    if blob is None:                 # written in place: the index says how much of it is values
        if offset > min(len(in_place), max_bytes):
            raise Malformed(f"its index counts {offset} bytes, and {min(len(in_place), max_bytes)} were written")
        blob = memoryview(in_place)[:offset]
        if resident > offset + PAGE or offset < COPY_BELOW:
            # pages written past the values would be kept with them, unaccounted by the store's
            # bound: keep a copy of the values alone (the mapping, and its pages, then go)
            blob = bytes(blob)
    if offset != len(blob):
        raise Malformed(f"its index counts {offset} bytes, and {len(blob)} came")
    return RunValues(index, blob)


def _entry(entry) -> tuple[str, str, tuple, int]:
    if not (isinstance(entry, dict) and set(entry) == {"id", "dtype", "shape", "nbytes"}):
        raise Malformed("an index entry is not {id, dtype, shape, nbytes}")
    ref, dtype, shape, nbytes = entry["id"], entry["dtype"], entry["shape"], entry["nbytes"]
    if not (isinstance(ref, str) and ID.fullmatch(ref)):
        raise Malformed("an index entry's id is not v<number>")
    if dtype not in DTYPES:
        raise Malformed(f"{ref}: dtype {str(dtype)[:40]!r} is not one kept")
    if not (isinstance(shape, list) and len(shape) <= MAX_DIMS
            and all(type(n) is int and 0 <= n < 1 << 40 for n in shape)):
        raise Malformed(f"{ref}: its shape is not a list of at most {MAX_DIMS} sizes")
    if type(nbytes) is not int or nbytes != math.prod(shape) * np.dtype(dtype).itemsize:
        raise Malformed(f"{ref}: nbytes is not its shape's size times its dtype's")
    # the recorder keeps only tensors past the record's inline size (ValueStore.admits), never an
    # empty one; and an empty shape is unbounded by its bytes: (0, 2**40, 2**40) could not be made
    # (numpy multiplies the other sizes: a 500), and (2**40, 0)'s summary was 2**40 empty lists
    if nbytes == 0:
        raise Malformed(f"{ref}: it has no values (an empty tensor is never kept)")
    return ref, dtype, tuple(shape), nbytes
