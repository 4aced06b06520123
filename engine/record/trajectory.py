"""A training loop's values over its iterations, so the page can scrub through training.

The first backward call is drawn as a graph; every later call whose graph has the same shape (the
same ops, leaves and shapes, so the same node ids) is an *iteration* of it. For the iterations kept,
the record's `trajectory` holds (docs/run-record.md): the loss (the root's value), each node's
value summary and each leaf's gradient summary (statistics and an 8-cell strip of block means),
each parameter's value and gradient as Tensors (large ones through the values side channel), and
the backprop steps of a few iterations.

Bounded by count and bytes, not by the loop's length: iterations are kept every `every`-th, all of
them while they fit, and when the kept ones outgrow MAX_ITERATIONS (or the byte budgets) every
other one is dropped and `every` doubles, so the kept ones still span the loop. An iteration not
kept at the moment it runs costs nothing here (its graph was snapshot by the recorder anyway).

An iteration's summaries are computed when the run ends, for the iterations still kept then (a
200-step loop keeps 50 of the ~114 it held on the way: summarising each at once was two thirds
of the trajectory's cost), from its arrays held meanwhile (within HELD_BYTES; a graph whose
iterations do not fit is summarised as each runs). What an iteration holds is its own: the
recorder copied the leaves' values and gradients of a call it writes later (an optimizer steps
them in place), a constant leaf (a BatchNorm's running statistics) is copied here, and an op's
output is a new array each iteration (an in-place op on it after the walk would show, as it
does in the last call's graph, which the recorder also writes at the run's end).
"""
from __future__ import annotations

import functools
import math

import numpy as np

from engine import native
from engine.record.values import (_C_DTYPES, MAX_DATA_ELEMENTS, TensorMemo, Written, _digits, _listed, _native_stats,
                                  _raw_stats, dtype_name)

MAX_ITERATIONS = 64             # kept iterations (summaries and loss)
MAX_STEP_ITERATIONS = 8         # kept iterations whose backprop steps are recorded too
STRIP = 8                       # cells of a summary's strip (block means of the flattened values)
SUMMARY_BYTES = 2_000_000       # the summaries' share of the run record
HELD_BYTES = 64 << 20           # arrays held until the run ends (summarised then, all iterations at once)
VALUES_BYTES = 2 << 20          # large parameters' values and gradients sent on the values side channel
SMALL_BYTES = 400_000           # small ones' (written whole in the record: at most MAX_DATA_ELEMENTS each)
STEPS_BYTES = 1_500_000         # the kept iterations' steps in the record (their first one measured)
MIN_ITERATIONS = 8              # a graph too large to keep this many iterations of has no trajectory


def signature(builder) -> tuple:
    """The forward graph's shape as snapshot_forward took it: node ids with their op and shape."""
    sig = []
    for entry in builder.fwd_nodes:
        if type(entry) is tuple:
            sig.append((entry[0], entry[1].name, entry[3].shape))
        else:
            sig.append((entry["id"], entry["kind"], tuple(entry["shape"])))
    return tuple(sig)


def summarise(arrays: list, out: np.ndarray, same: dict | None = None, stats=_raw_stats) -> None:
    """Row i of `out` (nan when written): [min, max, mean, std, strip...] of arrays[i]'s finite values
    in float64 (values.py's statistics: its two C passes for a float array), the strip STRIP block
    means of the flattened values (fewer for a smaller array); left nan for an array with no
    finite value. An array standing in several rows is read once. `same`: id of an array -> the
    row of an array holding the same values (a parameter and the copy the record keeps of it).
    `stats`: _raw_stats, or a values.BlockStats the record of the same walk reads after (the
    statistics of each block once: they were a third of a recorded transformer step)."""
    done: dict[int, int] = dict(same or {})
    views: dict[tuple, int] = {}          # TensorMemo._layout of a view that is not C-ordered -> its row
    strip = _native_strip()
    for i, a in enumerate(arrays):
        if a is None:
            continue
        j = done.get(id(a))
        if j is not None and j < i:
            out[i] = out[j]
            continue
        done[id(a)] = i
        a = np.asarray(a)
        if not a.size or a.dtype.kind not in "fiub":
            continue
        if not a.flags.c_contiguous:
            # the same memory read the same way (a weight's .t() at each of an LSTM's 35 steps):
            # the same row, without another C-ordered copy for its strip (138 such views of 4
            # blocks, 88 MB of copies, were most of an LSTM LM's first-call summaries)
            layout = TensorMemo._layout(a)
            if layout is not None:
                j = views.setdefault(layout, i)
                if j < i:
                    out[i] = out[j]
                    continue
        # a view of every value of another array (a weight's transpose) has that array's statistics
        # (in another order: its own strip)
        base = a.base if isinstance(a.base, np.ndarray) and a.base.size == a.size else None
        j = done.get(id(base)) if base is not None else None
        if j is not None and j < i:
            out[i, :4] = out[j, :4]
        else:
            whole = base if base is not None and base.flags.c_contiguous else a   # (the C pass reads memory in order)
            # (an integer array's float64 copy is not kept alive: not `stats`, which remembers by address)
            found = stats(whole) if whole.dtype.kind == "f" else _raw_stats(whole.astype(np.float64))
            if found is None:
                continue
            out[i, :4] = found
        cells = min(STRIP, a.size)
        if strip is not None and type(a) is np.ndarray and a.dtype in _C_DTYPES:
            # in C, from the values in their flattened order (reshape(-1)'s copy of a strided view)
            strip(a if a.flags.c_contiguous else np.ascontiguousarray(a), out[i, 4:4 + cells])
            continue
        starts, sizes = _cells(a.size, cells)
        with np.errstate(invalid="ignore", over="ignore"):
            out[i, 4:4 + cells] = block_sums(a.reshape(-1), starts) / sizes


WHOLE_REDUCEAT = 1 << 20       # elements: a larger array's strip is summed cell by cell (block_sums)


def block_sums(flat: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """np.add.reduceat(flat, starts, dtype=np.float64), the same sums bit for bit. A large array's
    cells are each reduceat on its own slice (the same bits: tests/engine/record/test_trajectory.py
    compares them across numpy's buffer sizes): reduceat over the whole array first makes a float64
    copy of all of it — GPT-2 small's 154 MB embedding gradient made a 308 MB one, the peak of its
    recorded run."""
    if flat.size <= WHOLE_REDUCEAT:
        return np.add.reduceat(flat, starts, dtype=np.float64)
    ends = [*starts[1:].tolist(), flat.size]
    return np.concatenate([np.add.reduceat(flat[s:e], _FIRST, dtype=np.float64) for s, e in zip(starts.tolist(), ends)])


_FIRST = np.zeros(1, dtype=np.intp)


@functools.lru_cache(maxsize=1)
def _native_strip():
    """fastops' strip (the cells' means in C, without reduceat's float64 copy of the array and
    with no call per cell) when engine/native's statistics are in use and it gives block_sums'
    bits here, else None. Probed once: sizes around the pairwise sum's blocks, both dtypes, signed
    zeros."""
    if _native_stats() is None:
        return None
    strip = native.loaded().strip
    rng = np.random.default_rng(16)
    for n in (1, 5, 8, 9, 17, 100, 1031, 4097):
        cells = min(STRIP, n)
        starts, sizes = _cells(n, cells)
        for values in (rng.normal(0.5, 3.0, n), rng.standard_cauchy(n) * 1e20,
                       np.where(rng.random(n) < 0.5, -0.0, 1e-30) * rng.random(n)):
            for dtype in _C_DTYPES:
                x = values.astype(dtype)
                found = np.empty(cells)
                strip(x, found)
                if found.tobytes() != (block_sums(x, starts) / sizes).tobytes():
                    return None
    return strip


@functools.lru_cache(maxsize=256)
def _cells(n: int, cells: int) -> tuple:
    starts = (np.arange(cells) * n) // cells
    return starts, np.diff(np.append(starts, n))


class _Iteration:
    __slots__ = ("number", "loss", "rows", "held", "tensors", "large", "builder", "steps")

    def __init__(self, number):
        self.number, self.held, self.builder, self.steps = number, None, None, None
        self.tensors = self.large = None        # the small parameters' (value, grad), the large ones'

    def summarise(self, n_series: int, same: dict | None = None, stats=_raw_stats) -> None:
        """Its summary rows from the arrays it held (see the module's docstring)."""
        self.rows = np.full((n_series, 4 + STRIP), np.nan)
        summarise(self.held, self.rows, same, stats)
        self.held = None


class _Sampled:
    """Which kept iterations also keep something costlier (their steps, their parameters' values):
    every `every`-th of them, at most `limit`, halved when full."""

    def __init__(self, limit: int):
        self.limit, self.every = limit, 1
        # how many kept iterations have it: counted as they come, so that the kept ones are
        # scanned only to thin them (a scan of up to 65 at each kept iteration was a third of
        # observe's time in a 200-step loop)
        self.having = 0

    def wants(self, number: int, base_every: int) -> bool:
        return bool(self.limit) and number % (base_every * self.every) == 0

    def recount(self, kept: list, attr: str) -> None:
        """After the kept iterations were thinned (every other one dropped)."""
        self.having = sum(1 for it in kept if getattr(it, attr))

    def thin(self, kept: list, attr: str, drop) -> None:
        if self.having <= self.limit:
            return
        having = [it for it in kept if getattr(it, attr)]
        if len(having) > self.limit:
            for it in having[1::2]:
                drop(it)
            self.every *= 2
        self.having = len(having) - len(having[1::2])


class Trajectory:
    """The iterations of the run's first recorded graph (see the module's docstring)."""

    def __init__(self):
        self.first = None              # the first call's signature; () when it has no trajectory
        self.total = 0                 # calls of that shape so far
        self.every = 1
        self.limit = MAX_ITERATIONS
        self.kept: list[_Iteration] = []
        self.params: list[str] = []    # forward ids of the leaves that require grad
        self.small: list[str] = []     # those of them written whole in the record, the others large
        self.large: list[str] = []
        self.series: list[tuple] = []  # (forward id, "value" | "grad"): a summary row each
        self.rows: dict[str, int] = {}  # forward id -> its value's row
        self.cells: list[int] = []     # each series' strip length
        self.with_steps = _Sampled(MAX_STEP_ITERATIONS)
        self.with_values = _Sampled(MAX_ITERATIONS)   # the large parameters' (side channel)
        self.with_small = _Sampled(MAX_ITERATIONS)    # the small ones' (the record)
        self.defer = False             # summaries at the run's end (the arrays held meanwhile fit HELD_BYTES)

    def observe(self, builder, root, steps: list, stats=_raw_stats) -> None:
        """One backward call, after its walk (builder: its DynamicGraphBuilder, snapshot; `stats`:
        as summarise's)."""
        if self.first == () or builder.too_large:
            if self.first is None:
                self.first = ()
            return
        sig = signature(builder)
        if self.first is None:
            self.first = sig
            self._size_limits(builder, steps)
            if not self.first:
                return
        elif sig != self.first:
            return
        number = self.total
        self.total += 1
        if number % self.every:
            return
        it = _Iteration(number)
        it.loss = float(root.array.reshape(-1)[0]) if root.array.size == 1 else None
        values = {(e[0] if type(e) is tuple else e["id"]): (e[3] if type(e) is tuple else e["value"])
                  for e in builder.fwd_nodes}
        grads = builder.leaf_grads
        if self.defer and builder.finished_later:
            # (the leaves' values and gradients are the recorder's copies; a constant's is made here)
            values.update({e["id"]: np.array(e["value"]) for e in builder.fwd_nodes
                           if type(e) is dict and e["kind"] == "const"})
            it.held = [(values if of == "value" else grads).get(fid) for fid, of in self.series]
        else:
            # a parameter's own array holds what the record's copy of it holds (the optimizer has not
            # stepped yet): a view of it (its transpose in a Linear) is summarised from that copy's row
            same = {id(t.array): self.rows[fid] for fid, t in builder.leaves if fid in self.rows}
            it.held = [(values if of == "value" else grads).get(fid) for fid, of in self.series]
            it.summarise(len(self.series), same, stats)
        # kept to the end of the run, while the optimizer changes them in place: a call the recorder
        # writes at once did not copy its leaves' values and gradients, one written later did
        keep = (lambda a: a) if builder.finished_later else (lambda a: None if a is None else np.array(a))
        if self.small and self.with_small.wants(number, self.every):
            it.tensors = {fid: (keep(values.get(fid)), keep(grads.get(fid))) for fid in self.small}
        if self.large and self.with_values.wants(number, self.every):
            it.large = {fid: (keep(values.get(fid)), keep(grads.get(fid))) for fid in self.large}
        if number and self.with_steps.wants(number, self.every):
            it.builder, it.steps = builder, builder.kept_past_the_walk(steps)     # (written at the run's end)
            settle = getattr(builder.names, "settle", None)     # (its names matched now: the frames' variables let go)
            if settle is not None:
                settle()
        self.kept.append(it)
        samples = ((self.with_steps, "steps"), (self.with_small, "tensors"), (self.with_values, "large"))
        if len(self.kept) > self.limit:
            self.kept = self.kept[::2]
            self.every *= 2
            for sampled, attr in samples:
                sampled.recount(self.kept, attr)
        else:
            for sampled, attr in samples:
                if getattr(it, attr):
                    sampled.having += 1
        # (only an iteration that kept steps or values can take its sample past its limit: the
        # scan over the kept ones is not made for the others)
        if it.steps is not None:
            self.with_steps.thin(self.kept, "steps", _drop_steps)
        if it.tensors is not None:
            self.with_small.thin(self.kept, "tensors", _drop_tensors)
        if it.large is not None:
            self.with_values.thin(self.kept, "large", _drop_large)

    def _size_limits(self, builder, steps) -> None:
        """The series to follow, and how many iterations fit the byte budgets, from the first call."""
        self.series = [(e[0] if type(e) is tuple else e["id"], "value") for e in builder.fwd_nodes]
        self.rows = {fid: k for k, (fid, _) in enumerate(self.series)}          # a node's value row
        self.series += [(fid, "grad") for fid, g in builder.leaf_grads.items() if g is not None]
        sizes = {e[0]: e[3].size for e in builder.fwd_nodes if type(e) is tuple}
        sizes.update({e["id"]: np.asarray(e["value"]).size for e in builder.fwd_nodes if type(e) is dict})
        self.cells = [min(STRIP, sizes.get(fid, 0)) for fid, _ in self.series]
        # the leaves that require grad (a module's parameters, a tensor made with requires_grad)
        leaves = [e for e in builder.fwd_nodes if type(e) is dict and e["kind"] in ("param", "input")]
        self.params = [e["id"] for e in leaves]
        self.small = [e["id"] for e in leaves if np.asarray(e["value"]).size <= MAX_DATA_ELEMENTS]
        self.large = [e["id"] for e in leaves if np.asarray(e["value"]).size > MAX_DATA_ELEMENTS]

        def param_bytes(ids):
            return sum(np.asarray(a).nbytes for fid in ids
                       for a in (values_of[fid], builder.leaf_grads.get(fid)) if a is not None)
        values_of = {e["id"]: e["value"] for e in leaves}
        held_bytes = sum(np.asarray(a).nbytes for a in (
            *(e[3] if type(e) is tuple else e["value"] for e in builder.fwd_nodes), *builder.leaf_grads.values())
            if a is not None)
        self.limit = min(MAX_ITERATIONS, SUMMARY_BYTES // (len(self.series) * (4 + STRIP) * 12 + 40))
        if self.limit < MIN_ITERATIONS:
            self.first = ()            # too large to follow: no trajectory
        # (kept ones reach limit + 1 before every other one is dropped)
        self.defer = held_bytes * (self.limit + 1) <= HELD_BYTES
        self.with_values.limit = min(self.limit, VALUES_BYTES // max(param_bytes(self.large), 1))
        # (a small one's float32 values are written in 7-9 digits: ~12 bytes each)
        self.with_small.limit = min(self.limit, SMALL_BYTES // max(3 * param_bytes(self.small), 1))
        # a step's record is its gradients' Tensors: stats and a preview, or the data of a small one
        step_bytes = sum(200 + 12 * min(g.size if type(g) is Written else np.asarray(getattr(g, "array", g)).size, 64)
                         for _, grad, ins in steps for g in (grad, *ins) if g is not None)
        self.with_steps.limit = min(MAX_STEP_ITERATIONS, STEPS_BYTES // max(step_bytes, 1))

    def to_record(self, values=None, step_tensors: int = 0) -> tuple[dict, int] | None:
        """The record's `trajectory` (None for a run of fewer than two iterations), and how many of
        the record's step gradients its iterations' steps used: an iteration's steps are kept only
        whole, within `step_tensors` (the recorder's MAX_STEP_TENSORS left over by the graphs)."""
        if not self.first or len(self.kept) < 2:
            return None
        kept = self.kept
        for it in kept:
            if it.held is not None:
                it.summarise(len(self.series))
        table = np.stack([it.rows for it in kept], axis=1)        # series x iterations x (4 + STRIP)
        empty = np.isnan(table[:, :, 0]).tolist()                  # no finite value (or not summarised)
        stats, strips = _listed(_digits(table[:, :, :4], 6)), _listed(_digits(table[:, :, 4:], 4))
        series = []
        for k, (fid, of) in enumerate(self.series):
            cells = self.cells[k]
            series.append({"node": fid, "of": of,
                           "stats": [None if no else row for row, no in zip(stats[k], empty[k])],
                           "strip": [[] if no else row[:cells] for row, no in zip(strips[k], empty[k])]})
        tensors, small = [], _SmallTensors()
        for fid in self.params:
            for j, of in ((0, "value"), (1, "grad")):
                tensors.append({"node": fid, "of": of,
                                "at": [_tensor(values, kept_of(it, fid)[j], small) for it in kept]})
        small.write()
        memo = TensorMemo(values)
        steps, left = [], step_tensors
        for it in kept:
            if it.steps is not None:
                walk, used, bare = it.builder.steps_record(it.steps, memo, left)
                if bare is not None:
                    break
                steps.append({"iteration": it.number, "steps": walk})
                left -= used
        memo.flush()
        return {"iterations": [it.number for it in kept], "total": self.total, "every": self.every,
                "loss": [_number(it.loss) for it in kept], "series": series, "tensors": tensors,
                "steps": steps}, step_tensors - left


def _drop_steps(it) -> None:
    it.builder = it.steps = None


def _drop_tensors(it) -> None:
    it.tensors = None


def _drop_large(it) -> None:
    it.large = None


def kept_of(it: _Iteration, fid: str) -> tuple:
    """A parameter's (value, gradient) kept at iteration `it`, (None, None) where not kept."""
    for kept in (it.tensors, it.large):
        if kept is not None and fid in kept:
            return kept[fid]
    return (None, None)


def _tensor(values, array, small: "_SmallTensors"):
    """A parameter's value or gradient at one iteration as the record's Tensor: a small one whole
    (its data written by `small`); a large one as its shape, dtype and the id of its values on the
    side channel, or null when there is no side channel or it is past its bound. Either way its
    statistics are the series' (the page reads them there: static/js/training.js tensorAt)."""
    if array is None:
        return None
    if array.size <= MAX_DATA_ELEMENTS:
        return small.add(array)
    ref = values.add(array) if values is not None else None
    if ref is None:
        return None
    return {"shape": list(array.shape), "dtype": dtype_name(array.dtype), "data": None, "stats": None, "values": ref}


class _SmallTensors:
    """The data of the small Tensors of a trajectory, written all at once per dtype: values.py's
    `_values` (float32 in the shortest of 7 or 9 digits that reads back the same) over their
    values together, the same digits as tensor by tensor (the rounding is element by element),
    without its per-call cost for each of a few hundred biases (most of `tensors`' time)."""

    def __init__(self):
        self.pending: dict = {}        # dtype -> [(array, the Tensor to fill)]

    def add(self, array: np.ndarray) -> dict:
        out = {"shape": list(array.shape), "dtype": dtype_name(array.dtype), "data": None, "stats": None}
        self.pending.setdefault(array.dtype, []).append((array, out))
        return out

    def write(self) -> None:
        for dtype, pending in self.pending.items():
            if dtype.kind != "f" or dtype.itemsize > 4:
                for array, out in pending:
                    out["data"] = _listed(array)
                continue
            together = np.concatenate([array.reshape(-1) for array, _ in pending])
            x = together.astype(np.float64)
            written, short = _digits(x, 9), _digits(x, 7)
            same = short.astype(dtype) == together
            written[same] = short[same]
            start = 0
            for array, out in pending:
                out["data"] = _listed(written[start:start + array.size].reshape(array.shape))
                start += array.size
        self.pending = {}


def _number(v):
    if v is None:
        return None
    if math.isfinite(v):
        return v
    return "nan" if math.isnan(v) else ("inf" if v > 0 else "-inf")


