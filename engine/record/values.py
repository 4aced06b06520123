"""Tensors as the run record writes them: shape, dtype, stats, the data itself when small, else a
preview and a heat-map; float32 values in the fewest digits that read back the same."""
from __future__ import annotations

import functools
import math
import weakref
from typing import Any

import numpy as np

from engine import native

MAX_DATA_ELEMENTS = 64         # tensors up to this size carry their data; larger ones stats + preview
PREVIEW_ELEMENTS = 16
HEATMAP_SIDE = 24              # cells a side of a large tensor's heat-map


def _finite(x: float) -> Any:
    if math.isfinite(x):
        return x
    return "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")


def _clean(data):
    if isinstance(data, list):
        return [_clean(d) for d in data]
    if isinstance(data, float):
        return _finite(data)
    return data


def _listed(x: np.ndarray) -> list:
    """x as nested lists for JSON, non-finite floats as strings. Most tensors hold none: one
    vectorised test spares the walk over every element (it was most of a large model's record);
    of rows stacked together (a record's previews, flushed at once) only those holding one are
    walked (an attention mask's -inf in a few previews made the walk go over all of nanoGPT's)."""
    if x.dtype.kind != "f":
        return x.tolist()
    finite = np.isfinite(x)
    if finite.all():
        return x.tolist()
    listed = x.tolist()
    if x.ndim < 2:
        return _clean(listed)
    for i in np.flatnonzero(~finite.reshape(len(x), -1).all(axis=1)).tolist():
        listed[i] = _clean(listed[i])
    return listed


def _digits(x: np.ndarray, significant: int) -> np.ndarray:
    """x (float64) rounded to `significant` decimal digits, each result the double nearest its
    decimal, so that JSON writes it short (0.1257302 rather than 0.12573021650314331). Values the
    power-of-ten arithmetic cannot scale exactly (a power beyond 10**22) and non-finite ones are
    left as they are."""
    with np.errstate(divide="ignore", invalid="ignore"):
        shift = (significant - 1) - np.floor(np.log10(np.abs(x)))
    out = x.copy()
    exact = np.isfinite(shift) & (np.abs(shift) <= 22)
    shift = shift[exact]
    power = 10.0 ** np.abs(shift)
    # multiply by an exact power of ten and round, then divide by it: correctly rounded, so the
    # double nearest the decimal (going up for large values: divide first, then multiply)
    out[exact] = np.where(shift >= 0, np.rint(x[exact] * power) / power, np.rint(x[exact] / power) * power)
    return out


def _values(arr: np.ndarray) -> list:
    """An array's values for the record. A float32 (or float16) value is written with 7 significant
    digits when those read back as the same float32, else with 9 (which always do), instead of
    the 17 its float64 needs: 0.1 rather than 0.10000000149011612. The record is about a third
    smaller and says nothing the tensor does not hold."""
    if arr.dtype.kind == "f" and arr.dtype.itemsize <= 4:
        x = arr.astype(np.float64)
        out, short = _digits(x, 9), _digits(x, 7)
        same = short.astype(arr.dtype) == arr
        out[same] = short[same]
        return _listed(out)
    return _listed(arr)


def tensor_json(arr, heatmap: bool = True) -> dict | None:
    """A Tensor of the run record: shape, dtype, stats, and the data itself when small; a large
    one's heat-map unless `heatmap` is false (its values are kept apart, or past their bound)."""
    if arr is None:
        return None
    arr = np.asarray(getattr(arr, "array", arr))
    out: dict = {"shape": list(arr.shape), "dtype": dtype_name(arr.dtype), "data": None, "stats": None}
    if arr.size and arr.dtype.kind in "fiub":
        a = arr.astype(np.float64)
        is_finite = np.isfinite(a)
        finite = a if is_finite.all() else a[is_finite]     # (no copy in the common case)
        if finite.size:
            stats = np.array(_overflow_safe([finite.min(), finite.max(), finite.mean(), finite.std()], finite))
            if arr.dtype.kind == "f" and arr.dtype.itemsize <= 4:
                stats = _digits(stats, 9)
            out["stats"] = dict(zip(("min", "max", "mean", "std"), stats.tolist()))
    if arr.size <= MAX_DATA_ELEMENTS:
        out["data"] = _values(arr)
    else:
        out["preview"] = _values(arr.reshape(-1)[:PREVIEW_ELEMENTS])
        if heatmap and arr.dtype.kind in "fiub" and arr.ndim and arr.shape[-1]:
            out["heatmap"] = _heatmap(arr)
    return out


@functools.lru_cache(maxsize=64)
def _kind(dtype: np.dtype) -> tuple:
    """(dtype_name, whether its values are written in short digits (float32, float16), whether
    fastops' summary reads it)."""
    return dtype_name(dtype), dtype.kind == "f" and dtype.itemsize <= 4, dtype in _C_DTYPES


@functools.lru_cache(maxsize=64)
def dtype_name(dtype: np.dtype) -> str:
    """str(dtype), remembered: numpy builds the name in Python each time (a fifth of a recurrent
    model's record once values were kept apart). A non-native byte order is spelled: '>f4'."""
    return str(dtype)


# dtypes whose values may go to the side channel: numeric, fixed size, native byte order (the
# server rebuilds each array from its dtype's name alone, so the name must say everything)
VALUE_DTYPES = frozenset({"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64",
                          "float16", "float32", "float64"})


class ValueStore:
    """Full values of a run's large tensors, kept apart from the record (the sandbox child sends
    them to the server on a binary side channel): the record carries a large tensor's shape,
    dtype, stats and preview and the id of its values, and the server keeps the bytes, which the
    page fetches when a node is clicked (GET /api/runs/{run}/tensors/{id}: the values, and the
    heat-map from them). A 24 x 24 heat-map per tensor was most of a transformer's record (5 MB
    for nanoGPT) and a third of the time to write it.

    Bounded by `max_bytes` (a copy in the run's own memory): past it a large tensor has neither
    values nor heat-map, only its stats and preview. The bytes are copied now (C order, native
    byte order): the program may change the arrays in place later."""

    MAX_TENSORS = 20_000

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes
        self.index: list[dict] = []        # {"id", "dtype", "shape", "nbytes"}, in the order of `chunks`
        self.chunks: list[bytes] = []
        self.size = 0
        self.reserved = 0                  # bytes held for tensors to come (reserve)

    def reserve(self, like: np.ndarray) -> int:
        """Hold room for a tensor that will come later, of `like`'s size and dtype, as if it were
        added now (a leaf's gradient, while the walk that makes it runs): the bytes held, 0 when
        it would not be kept. Give them back to `add` with it, or to `release`."""
        if (like.size <= MAX_DATA_ELEMENTS or dtype_name(like.dtype) not in VALUE_DTYPES
                or self.size + self.reserved + like.nbytes > self.max_bytes):
            return 0
        self.reserved += like.nbytes
        return like.nbytes

    def release(self, reserved: int) -> None:
        self.reserved -= reserved

    def add(self, array: np.ndarray, reserved: int = 0) -> str | None:
        """The id of `array`'s bytes kept here, or None when it does not belong (small, an odd
        dtype) or does not fit beside what is kept and held (`reserve`). `reserved`: bytes held
        for this array, released either way."""
        name = self.admits(array, reserved)
        if name is None:
            return None
        ref = f"v{len(self.index) + 1}"
        self.index.append({"id": ref, "dtype": name, "shape": list(array.shape), "nbytes": array.nbytes})
        self.chunks.append(array.tobytes())
        self.size += array.nbytes
        return ref

    def admits(self, array: np.ndarray, reserved: int = 0) -> str | None:
        """add's admission (a subclass keeping the bytes elsewhere calls it first): the dtype's
        name when `array` is kept, else None; releases `reserved` either way."""
        self.reserved -= reserved
        name = dtype_name(array.dtype)
        if (array.size <= MAX_DATA_ELEMENTS or name not in VALUE_DTYPES or len(self.index) >= self.MAX_TENSORS
                or self.size + self.reserved + array.nbytes > self.max_bytes):
            return None
        return name


class Written:
    """A tensor a TensorMemo has written already (a backward step's gradient, summarised as the walk
    made it: the recorder's step writer), standing where its array stood; `tensor` None when it
    was past the record's budget of step gradients (never shown). `size`: the array's."""
    __slots__ = ("tensor", "size")

    def __init__(self, tensor: dict | None, size: int):
        self.tensor, self.size = tensor, size


class TensorMemo:
    """tensor_json once per array for one record's serialisation: a backward step's gradient is
    the next step's input and a leaf's last step's output is its .grad (a third of a transformer's
    tensors came twice). Keyed by the array object, held weakly: a backward walk's gradients are
    written as the walk makes them and freed by it (recorder.DynamicGraphBuilder.step_writer), so
    an entry counts only while its array lives (an id, or a layout's address, is reused only once
    it is freed). An array does not change between two places it stands in one record (no user
    code runs while it is written; in a walk, its gradients are new arrays).
    With a ValueStore, a large tensor is its shape, dtype and the id of its kept values."""

    def __init__(self, values: ValueStore | None = None, stats: BlockStats | None = None):
        self._seen: dict[int, tuple] = {}          # id(array) -> (weakref to it, its Tensor)
        self._same_view: dict[tuple, tuple] = {}   # _layout -> (weakref to its block's owner, its Tensor)
        self._values = values
        # float32/16 tensors' raw stats, and the dicts to fill with them (two lists: no tuple per
        # tensor for the GC to scan)
        self._stats: list = []
        self._stats_out: list[dict] = []
        # raw statistics once per block of memory; shared with the trajectory's summaries of the
        # same walk (they are made first, from the same arrays, which the walk keeps alive)
        self._raw_stats_once = stats if stats is not None else BlockStats()
        self._previews: dict = {}              # dtype -> ([first values' float64 bytes], [the lists to fill])
        self._summarise = _native_summary()    # fastops' summary, or None
        self.reserved = 0                      # the ValueStore's bytes held for the next array written (ValueStore.add)

    def __call__(self, arr) -> dict | None:
        written = self.write(arr)
        return None if written is None else dict(written)   # (each place its own dict; the lists inside are never changed)

    def write(self, arr) -> dict | None:
        """arr's Tensor as this memo holds it, shared by every place `arr` stands (a Written
        holds it so: `held` may add its values id before the record is read)."""
        if arr is None:
            return None
        if type(arr) is Written:
            return arr.tensor
        array = arr if type(arr) is np.ndarray else getattr(arr, "array", arr)
        hit = self._seen.get(id(array))
        if hit is None or hit[0]() is not array:
            kept = array if type(array) is np.ndarray else np.asarray(array)
            layout = self._layout(kept)
            if layout is None:
                written = self._written(kept)
            else:
                same = self._same_view.get(layout)
                if same is not None and same[0]() is not None:
                    written = same[1]
                else:
                    owner = weakref.ref(_owner(kept))
                    written = self._written(kept, layout[0], owner)
                    self._same_view[layout] = (owner, written)
            hit = (weakref.ref(kept) if kept is array else _alive(array), written)
            self._seen[id(array)] = hit
        return hit[1]

    def held(self, arr, reserved: int) -> dict | None:
        """self(arr), with `reserved` bytes of the ValueStore held for it (ValueStore.reserve),
        released if it is written without them (small, not kept). An array written before
        without room (a step made a leaf's gradient before its AccumulateGrad took it) gets its
        values now, in every place it stands."""
        self.reserved = reserved
        try:
            written = self.write(arr)
            if written is not None and self.reserved and "values" not in written and written["data"] is None:
                ref = self._values.add(np.asarray(getattr(arr, "array", arr)), self.reserved)
                self.reserved = 0
                if ref is not None:
                    written["values"] = ref
            return None if written is None else dict(written)
        finally:
            if self.reserved:
                self._values.release(self.reserved)
                self.reserved = 0

    @staticmethod
    def _layout(array: np.ndarray) -> tuple | None:
        """Where a large array's values are and how it reads them: its block's address, shape,
        strides and dtype (None for a small one, or one that is not a block seen in some axis
        order). Two views with the same layout hold the same values while no user code runs:
        a weight's `.t()` at each of an LSTM's 35 steps is 35 view objects of one layout (92 of
        the 134 MB it kept were such repeats), now one summary and one kept copy."""
        if array.size <= MAX_DATA_ELEMENTS:
            return None
        address = _block(array)
        return None if address is None else (address, array.shape, array.strides, array.dtype)

    def _written(self, array: np.ndarray, address: int | None = None, owner=None) -> dict:
        if self._values is None or array.size <= MAX_DATA_ELEMENTS:
            return tensor_json(array)
        out = self._summary(array, address, owner)
        ref = self._values.add(array, self.reserved)
        self.reserved = 0
        if ref is not None:
            out["values"] = ref
        return out

    def _summary(self, arr: np.ndarray, address: int | None = None, owner=None) -> dict:
        """tensor_json(arr, heatmap=False) of a large tensor, the same numbers bit for bit, with
        its float32 statistics and preview written in digits later, all at once (flush): rounding
        them tensor by tensor cost more than the statistics of a 20 x 200 tensor. A float32 or
        float64 array's statistics and preview come from one C call (BlockStats.summary)."""
        dtype = arr.dtype
        name, short, by_c = _kind(dtype)
        out: dict = {"shape": list(arr.shape), "dtype": name, "data": None, "stats": None}
        if by_c and self._summarise is not None and type(arr) is np.ndarray:
            raw, first = self._raw_stats_once.summary(arr, address, PREVIEW_ELEMENTS, owner)   # (first: float64 bytes)
        else:
            raw = self._raw_stats_once(arr, address) if arr.size and dtype.kind in "fiub" else None
            first = np.asarray(arr.flat[:PREVIEW_ELEMENTS])
            first = first.astype(np.float64).tobytes() if short else first
        if raw is not None and short:
            stats = out["stats"] = {}
            self._stats.append(raw)
            self._stats_out.append(stats)
        elif raw is not None:
            out["stats"] = dict(zip(STATS, raw))
        if short:
            pending = self._previews.get(dtype)
            if pending is None:
                pending = self._previews[dtype] = ([], [])
            preview = out["preview"] = []
            pending[0].append(first)
            pending[1].append(preview)
        else:
            out["preview"] = _values(np.frombuffer(first, np.float64) if type(first) is bytes else first)
        return out

    def flush(self) -> None:
        """Write the pending statistics and previews (the dicts and lists handed out are filled
        in place: every place a tensor stands shares them). Call once the graph's tensors are in."""
        if self._stats:
            rows = _digits(np.array(self._stats), 9).tolist()
            for row, stats in zip(rows, self._stats_out):
                stats.update(zip(STATS, row))
        for dtype, (firsts, previews) in self._previews.items():
            # (each row the float64 bytes of a tensor's first values: exact, so == compares the
            # dtype's values as before)
            x = np.frombuffer(b"".join(firsts), np.float64).reshape(len(firsts), -1)
            out, short = _digits(x, 9), _digits(x, 7)
            same = short.astype(dtype) == x
            out[same] = short[same]
            for row, preview in zip(_listed(out), previews):
                preview.extend(row)
        self._stats, self._stats_out, self._previews = [], [], {}


class BlockStats:
    """_raw_stats of arrays, remembered per block of memory on C's path (see __call__). Keyed by
    address, each entry with a weak reference to the array owning that memory: an entry counts
    while its owner lives (a walk's gradients are freed once written, and a later one may stand
    at the same address). The block's values do not change meanwhile (see TensorMemo)."""

    def __init__(self):
        # (address, bytes, dtype) -> (weakref to the block's owner, C's raw stats or None): an
        # entry counts while the memory it was read from is its owner's (a walk's gradients are
        # summarised as it makes them, then freed, and a later one may stand at the same address)
        self._c: dict[tuple, tuple] = {}

    def __call__(self, arr: np.ndarray, address: int | None = None) -> list | None:
        """_raw_stats(arr), once per block of memory on C's path (`address`: _block(arr), when the
        caller has it): a tensor that is one block seen
        in another shape or axis order (a weight's .t() at each of an LSTM's 35 steps, a reshape,
        the gradient a view's backward step passes on) has the statistics of the block, which C
        sums in memory order either way (_raw_stats_c on _in_memory_order: the same bits). Nearly
        half of an LSTM's and a quarter of nanoGPT's summarised values were such views of another.
        A block holding a value that is not finite goes to numpy's path view by view (its
        finite values are taken in each view's own order)."""
        if type(arr) is not np.ndarray or arr.dtype not in _C_DTYPES or _native_summary() is None:
            return _raw_stats(arr)
        return self.summary(arr, address, -1)[0]

    def summary(self, arr: np.ndarray, address: int | None = None, first: int = PREVIEW_ELEMENTS,
                owner=None) -> tuple:
        """(_raw_stats(arr) as __call__ gives it, the float64 bytes of arr's first `first` values or
        None when first < 0) in one C call (fastops' summary), for a float32 or float64 ndarray
        when _native_summary() is not None. `owner`: a weak reference to _owner(arr), when the
        caller has one."""
        summary = _native_summary()
        if address is None:
            address = _block(arr)
        if address is None:           # (a view with gaps: summed from a copy, not remembered by address)
            found, preview = summary(arr, first)
            return (_raw_stats_numpy(arr) if found is None else _signed_zeros(arr, found)), preview
        key = (address, arr.nbytes, arr.dtype)
        entry = self._c.get(key)
        if entry is None or entry[0]() is None:
            found, preview = summary(arr, first)
            if found is not None and (found[0] == 0 or found[1] == 0):
                found = _signed_zeros(arr, found)
            entry = self._c[key] = (owner or weakref.ref(_owner(arr)), found)
        else:
            preview = summary(arr, first, False)[1] if first >= 0 else None
        found = entry[1]
        return (found if found is not None else _raw_stats_numpy(arr)), preview


STATS = ("min", "max", "mean", "std")


def _block(array: np.ndarray) -> int | None:
    """Where array's memory starts when array is one block of memory seen in some axis order
    (_in_memory_order gives it C-ordered), else None (a view with gaps, a negative stride, not an
    ndarray, or engine/native not loaded): fastops' block, one call."""
    if type(array) is not np.ndarray or _native is None and not _load_native():
        return None
    return _native.block(array)


_native = None


def _load_native() -> bool:
    global _native
    _native = native.loaded()
    return _native is not None


def _owner(array: np.ndarray) -> np.ndarray:
    """The array at the end of `array`'s chain of bases: while it lives, so does the memory of
    every view of it (a buffer that is not an array, its base, is held by it)."""
    while isinstance(array.base, np.ndarray):
        array = array.base
    return array


def _alive(obj):
    """A reference to `obj` as a weakref is called (for a memo key that is not an ndarray)."""
    return lambda: obj


def _raw_stats(arr: np.ndarray) -> list | None:
    """tensor_json's statistics before rounding (float64 min, max, mean, std over the finite
    values). A float32 or float64 array's in engine/native's two C passes (fastops.c's summary:
    numpy's pairwise sums in numpy's order, so the same bits) when they agree with numpy here
    (`_native_summary`); any other array's, or one holding a non-finite value, in numpy's."""
    summary = _native_summary()
    if summary is not None and type(arr) is np.ndarray and arr.dtype in _C_DTYPES:
        found = summary(arr, -1)[0]
        if found is not None:
            return _signed_zeros(arr, found)
    return _raw_stats_numpy(arr)


def _raw_stats_reference(arr: np.ndarray) -> list | None:
    """_raw_stats as it was before fastops' summary (the oracle of the tests and of the probe): a
    C-contiguous float32 or float64 array, or one block in another axis order, by fastops' stats
    on _in_memory_order(arr); a view with gaps (a slice of columns: an LSTM's gates, attention's
    q, k, v split), its axes in memory order, by stats on its C-ordered copy, which holds the
    values in the order numpy's float64 copy does (astype keeps the layout, order K), so C's sums
    of it are numpy's. A negative or zero stride, or a value not finite: numpy's."""
    stats = _native_stats()
    if stats is not None and type(arr) is np.ndarray and arr.dtype in _C_DTYPES:
        block = arr if arr.flags.c_contiguous else _in_memory_order(arr)
        if not block.flags.c_contiguous and block is not arr:
            block = np.ascontiguousarray(block)
        if block.flags.c_contiguous:
            found = _raw_stats_c(block, stats)
            if found is not None:
                return found
    return _raw_stats_numpy(arr)


def _signed_zeros(arr: np.ndarray, found: tuple) -> tuple:
    """fastops' summary's statistics with a zero min or max as numpy's float64 min and max of the
    values in memory order say it (-0.0 or 0.0), as _raw_stats_c does for the block it sums."""
    low, high, mean, std = found
    if low == 0 or high == 0:
        block = _in_memory_order(arr)
        a = (block if block.flags.c_contiguous else np.ascontiguousarray(block)).astype(np.float64)
        return float(a.min()), float(a.max()), mean, std
    return found


def _address(block: np.ndarray) -> int:
    """Where C-contiguous `block`'s memory starts: fastops' address, a buffer's pointer (numpy's
    __array_interface__ builds a dict of nine entries to say it: ~40% of a small tensor's summary)."""
    return native.loaded().address(block)


def _in_memory_order(arr: np.ndarray) -> np.ndarray:
    """arr's axes permuted into the order of its memory, a C-contiguous view when arr is one block
    seen in another axis order (a transpose, an attention head's permute). numpy's sums go in that
    order too: astype keeps the layout (order K) and a reduction over every axis walks the copy
    in memory order, as one run. Anything else (a step, a negative stride) comes back as it was."""
    strides, shape = arr.strides, arr.shape
    if len(shape) == 2:                # (most of them: a weight's .t(); the same answer as below, sooner)
        (s0, s1), (n0, n1) = strides, shape
        if (n0 > 1 and s0 <= 0) or (n1 > 1 and s1 <= 0):
            return arr
        return arr.transpose((1, 0) if s1 > s0 else (0, 1))
    if any(step <= 0 for step, n in zip(strides, shape) if n > 1):
        return arr
    return arr.transpose(sorted(range(arr.ndim), key=lambda axis: -strides[axis]))


def _raw_stats_c(arr: np.ndarray, stats) -> list | None:
    """_raw_stats by fastops' stats, or None where it leaves the array to numpy (a value not finite)."""
    found = stats(arr)
    if found is None:
        return None
    low, high, total, squares = found
    if low == 0 or high == 0:      # which zero, -0.0 or 0.0: numpy's float64 min and max say, as below
        a = arr.astype(np.float64)
        low, high = float(a.min()), float(a.max())
    return [low, high, total / arr.size, math.sqrt(squares / arr.size)]


def _raw_stats_numpy(arr: np.ndarray) -> list | None:
    """_raw_stats in numpy, the reference, in few passes: no finiteness mask unless min or max
    says a value is not finite, and the sum for the mean is the one the variance starts from, as
    in numpy's own _var."""
    low, high = arr.min(), arr.max()       # on the tensor's own dtype: exact in float64 too, and half the bytes
    a = arr.astype(np.float64)
    if low == 0 or high == 0:              # which zero, -0.0 or 0.0, a min finds may depend on the dtype's loop
        low, high = a.min(), a.max()
    if not (np.isfinite(low) and np.isfinite(high)):
        finite = a[np.isfinite(a)]
        if not finite.size:
            return None
        return _overflow_safe([finite.min(), finite.max(), finite.mean(), finite.std()], finite)
    n = a.size
    mean = np.add.reduce(a, axis=None) / n
    if not np.isfinite(mean):              # (before a is overwritten: _overflow_safe reads it)
        return _overflow_safe([float(low), float(high), float(mean), math.inf], a)
    np.subtract(a, mean, out=a)            # a is our copy: numpy's _var makes this array anew
    np.multiply(a, a, out=a)
    std = float(np.sqrt(np.add.reduce(a, axis=None) / n))
    if not math.isfinite(std):             # squares past float64's range: recomputed from arr, scaled
        return _overflow_safe([float(low), float(high), float(mean), std], arr.astype(np.float64))
    return [float(low), float(high), float(mean), std]


def _overflow_safe(stats: list, finite: np.ndarray) -> list:
    """min, max, mean, std of finite values whose float64 sum or squares overflowed (values near
    float64's largest, e.g. 100 x 1e308): the mean and std of the values scaled by their largest
    magnitude, scaled back, so the statistics stay finite numbers as the record promises (an inf
    mean made the whole record fail as JSON). Statistics that did not overflow come back as given."""
    low, high, mean, std = (float(v) for v in stats)
    if math.isfinite(mean) and math.isfinite(std):
        return stats
    with np.errstate(over="ignore", invalid="ignore"):
        scale = max(abs(low), abs(high))
        scaled = finite / scale
        return [low, high, float(scaled.mean()) * scale, float(scaled.std()) * scale]


_C_DTYPES = (np.dtype(np.float32), np.dtype(np.float64))     # native byte order only (== is exact)


@functools.lru_cache(maxsize=1)
def _native_stats():
    """fastops' stats when engine/native is loaded and gives numpy's bits here, else None. The
    probe runs once, on first use (after the zygote or the eager core loaded the module): sizes
    around the pairwise summation's blocks, both dtypes, signed zeros, a wide and a tiny spread."""
    module = native.loaded()
    if module is None:
        return None
    rng = np.random.default_rng(16)
    for n in (1, 7, 8, 9, 127, 128, 129, 1000, 4097, 70_001):
        for values in (rng.normal(0.5, 3.0, n), rng.standard_cauchy(n) * 1e20,
                       np.where(rng.random(n) < 0.5, -0.0, 1e-30) * rng.random(n)):
            for dtype in _C_DTYPES:
                x = values.astype(dtype)
                found, want = _raw_stats_c(x, module.stats), _raw_stats_numpy(x)
                if found is None or np.array(found).tobytes() != np.array(want, dtype=np.float64).tobytes():
                    return None
    return module.stats


@functools.lru_cache(maxsize=1)
def _native_summary():
    """fastops' summary when its statistics and previews are _raw_stats_reference's and the
    first values' here (probed once, on first use, in C order, transposed, permuted and gapped
    layouts of both dtypes, with signed zeros), else None (then _raw_stats_reference's path)."""
    module = native.loaded()
    if module is None or _native_stats() is None or not hasattr(module, "summary"):
        return None
    rng = np.random.default_rng(17)
    for values in (rng.normal(0.5, 3.0, (6, 40, 7)), np.where(rng.random((6, 40, 7)) < 0.5, -0.0, 1e-30)):
        for dtype in _C_DTYPES:
            x = values.astype(dtype)
            for view in (x, x.transpose(2, 0, 1), x[:, ::3], x[1:, 2:, ::-1], x.reshape(-1)[5:150].reshape(5, 29)):
                found, first = module.summary(view, PREVIEW_ELEMENTS)
                want = _raw_stats_reference(view)
                if found is not None:
                    found = _signed_zeros(view, found)
                if (found is None) != (view.strides[-1] < 0) or found is not None and (
                        np.array(found).tobytes() != np.array(want, dtype=np.float64).tobytes()):
                    return None
                if first != view.reshape(-1)[:PREVIEW_ELEMENTS].astype(np.float64).tobytes():
                    return None
    return module.summary


def _heatmap(arr: np.ndarray, side: int = HEATMAP_SIDE) -> list:
    """Block means over the last dim and all leading dims folded into rows: the picture the page
    draws of a tensor too large to list (at most `side` rows and 2*`side` columns for vectors).
    A colour needs no more than 4 significant digits."""
    m = arr.reshape(-1, arr.shape[-1]) if arr.ndim >= 2 else arr.reshape(1, -1)
    m = m.astype(np.float64)
    starts_r, starts_c, counts = _blocks(m.shape[0], m.shape[1], side if arr.ndim >= 2 else 2 * side, side)
    sums = np.add.reduceat(np.add.reduceat(m, starts_r, axis=0), starts_c, axis=1)
    return _listed(_digits(sums / counts, 4))


@functools.lru_cache(maxsize=256)
def _blocks(n_rows: int, n_cols: int, most_cols: int, most_rows: int) -> tuple:
    """The heat-map's block starts and sizes for one shape (a model repeats few shapes)."""
    rows = np.linspace(0, n_rows, min(most_rows, n_rows) + 1).astype(int)
    cols = np.linspace(0, n_cols, min(most_cols, n_cols) + 1).astype(int)
    return rows[:-1], cols[:-1], np.outer(np.diff(rows), np.diff(cols))
