"""Values selected by index: sort, topk, cummax/cummin, kthvalue, median and mode read x at
indices an index op already chose (so the indices are an input, as PyTorch's SortBackward0,
CummaxBackward0, KthvalueBackward0... save them), with gather's gradient under their own names;
the median of every element shares its gradient among ties as PyTorch does."""
from __future__ import annotations

import numpy as np

from engine.ops.index import _gather_forward
from engine.ops.registry import INDEX, OpDef, Spec, register
from engine.ops.shapes import normalize_dims, reduced_shape
from engine.ops.std_sort import std_sort


def _values_vjp(F, g, x, indices, out, dim):
    return F.gather_backward(g, indices, dim=dim, shape=tuple(x.shape)), None


# x read at indices of x's own shape (sort, cummax) or fewer along `dim` (topk): gather's gradient,
# which adds where an index repeats (cummax's running extreme points at one place many times)
for _name, _grad_fn, _what, _source in (
        ("sort", "SortBackward0", "x sorted along `dim`", "argsort"),
        ("topk", "TopkBackward0", "the k largest (or smallest) of x along `dim`", "argsort"),
        ("cummax", "CummaxBackward0", "the largest value so far along `dim`", "cummax_indices"),
        ("cummin", "CumminBackward0", "the smallest value so far along `dim`", "cummin_indices")):
    register(OpDef(
        _name, INDEX, _gather_forward, lambda x, indices, dim: Spec(tuple(indices.shape), x.dtype),
        _values_vjp, _grad_fn, f"{_what}: out = x[indices] along `dim` (indices from {_source})",
        "grad_x = zeros with each grad added back where its value came from", attrs=("dim",), saves=(1,)))


# ---- cummax / cummin: a running extreme and where it was ----------------------------------------

def _cumulative_extreme_indices(later_wins):
    def forward(x, dim):
        """PyTorch's cummax_cummin_helper: walking along `dim`, x takes over when it is NaN, or when
        the running value is not NaN and later_wins(x, running) (>= for cummax: ties go to the later
        index). One numpy step per position along `dim`, vectorised over the rest."""
        if x.ndim == 0:
            return np.zeros((), np.int64)
        d = normalize_dims(dim, x.ndim)[0]
        moved = np.moveaxis(x, d, 0)
        indices = np.zeros(moved.shape, np.int64)
        running, where = moved[0].copy(), np.zeros(moved.shape[1:], np.int64)
        for i in range(moved.shape[0]):
            value = moved[i]
            with np.errstate(invalid="ignore"):
                take = np.isnan(value) | (~np.isnan(running) & later_wins(value, running)) if x.dtype.kind == "f" \
                    else later_wins(value, running)
            running = np.where(take, value, running)
            where = np.where(take, i, where)
            indices[i] = where
        return np.moveaxis(indices, 0, d)
    return forward


for _name, _later_wins, _word in (("cummax", np.greater_equal, "largest"), ("cummin", np.less_equal, "smallest")):
    register(OpDef(
        f"{_name}_indices", INDEX, _cumulative_extreme_indices(_later_wins),
        lambda x, dim: Spec(tuple(x.shape), np.dtype(np.int64)),
        None, "", f"where the {_word} value so far along `dim` is (the later one on a tie)",
        "indices have no gradient", differentiable=False, attrs=("dim",), saves=()))


# ---- kthvalue / median / mode along a dim: one value per row, and its index ----------------------

def _gt_or_nan(a, b) -> bool:
    """PyTorch's order for kthvalue: NaN above everything."""
    return (a != a and b == b) or a > b


def _quick_select(values: list, k: int) -> int:
    """The index (into the original row) that PyTorch's kthvalue returns: TH's quick_select_template
    (Sedgewick's partition with a median-of-three pivot) run on (value, index) pairs as ATen runs it,
    so which of several equal values is returned is PyTorch's choice too. O(n) per row in Python."""
    arr, idx = list(values), list(range(len(values)))

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        idx[i], idx[j] = idx[j], idx[i]

    left, right = 0, len(arr) - 1
    while True:
        if right <= left:
            return idx[k]
        if right == left + 1:
            if _gt_or_nan(arr[left], arr[right]):
                swap(left, right)
            return idx[k]
        swap((left + right) >> 1, left + 1)
        if _gt_or_nan(arr[left + 1], arr[right]):
            swap(left + 1, right)
        if _gt_or_nan(arr[left], arr[right]):
            swap(left, right)
        if _gt_or_nan(arr[left + 1], arr[left]):
            swap(left + 1, left)
        i, j, pivot = left + 1, right, arr[left]
        while True:
            i += 1
            while _gt_or_nan(pivot, arr[i]):
                i += 1
            j -= 1
            while _gt_or_nan(arr[j], pivot):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(left, j)
        if j <= k:
            left = i
        if j >= k:
            right = j - 1


def _median_index(values: np.ndarray) -> int:
    """PyTorch's median along a dim: the first NaN if there is one, else the element of rank
    (n - 1) // 2 in (value, index) order (std::nth_element with index as the tie-break)."""
    nans = np.flatnonzero(values != values)
    if nans.size:
        return int(nans[0])
    return int(np.argsort(values, kind="stable")[(values.size - 1) // 2])


def _mode_index(values: np.ndarray) -> int:
    """PyTorch's mode: the smallest of the most frequent values, at the index of the last of its
    run once ATen's std::sort (not stable: engine/ops/std_sort.py) has ordered (value, index) pairs."""
    keys, order = values.tolist(), list(range(values.size))
    std_sort(keys, order)
    best, best_count, run = 0, 0, 0
    for i in range(len(keys)):
        run += 1
        if i == len(keys) - 1 or keys[i] != keys[i + 1]:
            if run > best_count:
                best, best_count = i, run
            run = 0
    return order[best]


def _row_selection(pick):
    def forward(x, dim, keepdim=False, **attrs):
        if x.ndim == 0:
            return np.zeros((), np.int64)
        d = normalize_dims(dim, x.ndim)[0]
        if x.shape[d] == 0:
            raise IndexError(f"Expected reduction dim {d} to have non-zero size.")
        rows = np.moveaxis(x, d, -1).reshape(-1, x.shape[d])
        picked = np.array([pick(row, **attrs) for row in rows], np.int64)
        out = picked.reshape(np.moveaxis(x, d, -1).shape[:-1])
        return np.expand_dims(out, d) if keepdim else out
    return forward


def _row_shape(x, dim, keepdim=False, **attrs):
    return Spec(tuple(reduced_shape(x.shape, dim, keepdim)), np.dtype(np.int64))


def _kth(row: np.ndarray, k: int) -> int:
    return _quick_select(row.tolist(), k - 1)


for _name, _pick, _what, _attrs in (
        ("kthvalue_indices", _kth, "where the k-th smallest value along `dim` is (PyTorch's quickselect)", ("k",)),
        ("median_indices", _median_index, "where the median along `dim` is (the lower of two)", ()),
        ("mode_indices", _mode_index, "where the most frequent value along `dim` is", ())):
    register(OpDef(
        _name, INDEX, _row_selection(_pick), _row_shape, None, "", _what, "indices have no gradient",
        differentiable=False, attrs=(*_attrs, "dim", "keepdim"), saves=()))


def _selected_forward(x, indices, dim, keepdim=False):
    d = normalize_dims(dim, x.ndim)[0] if x.ndim else 0
    if x.ndim == 0:
        return x.copy()
    index = indices if keepdim else np.expand_dims(indices, d)
    out = np.take_along_axis(x, index, axis=d)
    return out if keepdim else np.squeeze(out, d)


def _selected_vjp(F, g, x, indices, out, dim, keepdim=False):
    # PyTorch's value_selecting_reduction_backward: grad put back at the selected index
    if len(x.shape) == 0:
        return g, None
    if not keepdim:
        g, indices = F.unsqueeze(g, dim=dim), F.unsqueeze(indices, dim=dim)
    return F.gather_backward(g, indices, dim=dim, shape=tuple(x.shape)), None


for _name, _grad_fn, _what in (("kthvalue", "KthvalueBackward0", "the k-th smallest value"),
                               ("median_dim", "MedianBackward1", "the median"),
                               ("mode", "ModeBackward0", "the most frequent value")):
    register(OpDef(
        _name, INDEX, _selected_forward, lambda x, indices, dim, keepdim=False: Spec(tuple(indices.shape), x.dtype),
        _selected_vjp, _grad_fn, f"{_what} along `dim`: out = x[indices] (indices chosen beforehand)",
        "grad_x = zeros with grad put where the value came from", attrs=("dim", "keepdim"), saves=(1,)))


# ---- median of every element ---------------------------------------------------------------------

def _median_forward(x):
    """The lower median (PyTorch's: no averaging of the two middle values); NaN if any is NaN."""
    if x.size == 0:
        return np.asarray(np.nan, x.dtype) if x.dtype.kind == "f" else np.zeros((), x.dtype)
    flat = x.reshape(-1)
    if x.dtype.kind == "f" and np.isnan(flat).any():
        return np.asarray(np.nan, x.dtype)
    return np.asarray(np.partition(flat, (flat.size - 1) // 2)[(flat.size - 1) // 2])


def _median_vjp(F, g, x, out):
    # PyTorch's evenly_distribute_backward: grad / count at every element equal to the median
    # (at every NaN when the median is NaN)
    hits = F.bitwise_or(F.eq(x, out), F.bitwise_and(F.isnan(x), F.isnan(out)))
    return (F.div(F.where(hits, g, 0.0), F.sum(hits)),)


register(OpDef(
    "median", INDEX, _median_forward, lambda x: Spec((), x.dtype), _median_vjp, "MedianBackward0",
    "the lower median of all elements", "grad shared evenly among the elements equal to the median",
    saves=(0, "out")))
