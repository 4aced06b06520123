"""engine/codegen/buffers.py on its own: aligned storage, and the planned buffers shared only
between values whose (view-extended) lifetimes do not overlap."""
import numpy as np

from engine.codegen import buffers


def test_nbytes_and_address():
    assert buffers.nbytes((3, 4), np.float32) == 48 and buffers.nbytes((), np.float64) == 8
    a = np.arange(6, dtype=np.float32)
    assert buffers.address(a) == a.ctypes.data
    readonly = a.copy()
    readonly.flags.writeable = False                     # the ctypes path refuses it: the fallback
    assert buffers.address(readonly) == readonly.ctypes.data
    assert buffers.address(a[::2]) == a.ctypes.data     # strided: the first element's address


def test_aligned_storage_starts_on_a_cache_line():
    for size in (1, 7, 64, 1000):
        raw = buffers.aligned_bytes(size)
        assert raw.nbytes == size and buffers.address(raw) % buffers.ALIGNMENT == 0
        arr, at = buffers.aligned_array((size,), np.uint8, size)
        assert at == arr.ctypes.data and at % buffers.ALIGNMENT == 0 and arr.shape == (size,)


def test_values_of_one_buffer_share_storage_only_when_their_lifetimes_do_not_overlap():
    specs = {"a": ((4,), np.float32), "b": ((2, 2), np.float32), "c": ((8,), np.float32),
             "d": ((4,), np.float32)}
    defined = {"a": 0, "b": 2, "c": 1, "d": 4}
    last = {"a": 1, "b": 3, "c": 5, "d": 6}
    # the plan puts a, b and c in one buffer; c overlaps a and b, so it must get its own storage
    arrays, stats = buffers.allocate(specs, defined, last, {"a": "buf0", "b": "buf0", "c": "buf0"})
    assert arrays["a"].ctypes.data == arrays["b"].ctypes.data      # a is dead when b is made
    assert arrays["c"].ctypes.data != arrays["a"].ctypes.data
    assert arrays["d"].ctypes.data not in {arrays[v].ctypes.data for v in "abc"}   # unplanned: private
    assert arrays["b"].shape == (2, 2) and arrays["c"].dtype == np.float32
    assert stats["values"] == 4 and stats["shared"] == 1
    # each raw allocation of the buffer is sized for its largest occupant (c: 32 bytes)
    assert stats["bytes"] == 32 + 32 + 16
    arrays["a"][:] = 1.0
    arrays["c"][:] = 2.0                                 # writing c leaves a's (= b's) storage alone
    assert (arrays["a"] == 1.0).all()
