"""libstdc++'s std::sort (introsort), step for step, for the ops whose ties PyTorch leaves to it.

std::sort is not stable: which of several equal keys ends where depends on its partitions. ATen's
mode sorts (value, index) pairs comparing values only and reports the index of the last pair of
the longest run, so to print PyTorch's index Dagscope must move pairs exactly as libstdc++ (the
C++ library PyTorch's Linux wheels are built with) does: median-of-three pivot, Hoare partition,
heapsort below a depth limit, insertion sort of runs of 16 at the end. Keys compare with `<` only,
so NaN, which breaks the ordering, lands where std::sort leaves it too. Pure Python: O(n log n)
per row, for the small rows such ops see in teaching programs.
"""
from __future__ import annotations

_THRESHOLD = 16                     # libstdc++'s _S_threshold


def std_sort(keys: list, items: list) -> None:
    """Sort `items` in place by `keys` (moved together) as std::sort(first, last, comp) would
    with comp(a, b) = a.key < b.key."""
    n = len(keys)
    if n > 1:
        _introsort_loop(keys, items, 0, n, 2 * (n.bit_length() - 1))
        _final_insertion_sort(keys, items, 0, n)


def _swap(keys, items, i, j):
    keys[i], keys[j] = keys[j], keys[i]
    items[i], items[j] = items[j], items[i]


def _introsort_loop(keys, items, first, last, depth):
    while last - first > _THRESHOLD:
        if depth == 0:
            _heap_sort(keys, items, first, last)
            return
        depth -= 1
        cut = _partition_pivot(keys, items, first, last)
        _introsort_loop(keys, items, cut, last, depth)
        last = cut


def _partition_pivot(keys, items, first, last):
    mid = first + (last - first) // 2
    _move_median_to_first(keys, items, first, first + 1, mid, last - 1)
    return _unguarded_partition(keys, items, first + 1, last, first)


def _move_median_to_first(keys, items, result, a, b, c):
    if keys[a] < keys[b]:
        if keys[b] < keys[c]:
            _swap(keys, items, result, b)
        elif keys[a] < keys[c]:
            _swap(keys, items, result, c)
        else:
            _swap(keys, items, result, a)
    elif keys[a] < keys[c]:
        _swap(keys, items, result, a)
    elif keys[b] < keys[c]:
        _swap(keys, items, result, c)
    else:
        _swap(keys, items, result, b)


def _unguarded_partition(keys, items, first, last, pivot):
    while True:
        while keys[first] < keys[pivot]:
            first += 1
        last -= 1
        while keys[pivot] < keys[last]:
            last -= 1
        if not first < last:
            return first
        _swap(keys, items, first, last)
        first += 1


def _final_insertion_sort(keys, items, first, last):
    if last - first > _THRESHOLD:
        _insertion_sort(keys, items, first, first + _THRESHOLD)
        for i in range(first + _THRESHOLD, last):
            _unguarded_linear_insert(keys, items, i)
    else:
        _insertion_sort(keys, items, first, last)


def _insertion_sort(keys, items, first, last):
    for i in range(first + 1, last):
        if keys[i] < keys[first]:                 # move_backward, then the value at first
            key, item = keys[i], items[i]
            keys[first + 1:i + 1], items[first + 1:i + 1] = keys[first:i], items[first:i]
            keys[first], items[first] = key, item
        else:
            _unguarded_linear_insert(keys, items, i)


def _unguarded_linear_insert(keys, items, last):
    key, item = keys[last], items[last]
    prev = last - 1
    while key < keys[prev]:
        keys[last], items[last] = keys[prev], items[prev]
        last, prev = prev, prev - 1
    keys[last], items[last] = key, item


# ---- std::__partial_sort(first, last, last): make_heap then sort_heap ----------------------------

def _heap_sort(keys, items, first, last):
    n = last - first
    for parent in range((n - 2) // 2, -1, -1):                    # __make_heap
        _adjust_heap(keys, items, first, parent, n, keys[first + parent], items[first + parent])
    while last - first > 1:                                        # __sort_heap: __pop_heap
        last -= 1
        key, item = keys[last], items[last]
        keys[last], items[last] = keys[first], items[first]
        _adjust_heap(keys, items, first, 0, last - first, key, item)


def _adjust_heap(keys, items, first, hole, length, key, item):
    top = hole
    child = hole
    while child < (length - 1) // 2:
        child = 2 * (child + 1)
        if keys[first + child] < keys[first + child - 1]:
            child -= 1
        keys[first + hole], items[first + hole] = keys[first + child], items[first + child]
        hole = child
    if length & 1 == 0 and child == (length - 2) // 2:
        child = 2 * (child + 1)
        keys[first + hole], items[first + hole] = keys[first + child - 1], items[first + child - 1]
        hole = child - 1
    parent = (hole - 1) // 2                                       # __push_heap
    while hole > top and keys[first + parent] < key:
        keys[first + hole], items[first + hole] = keys[first + parent], items[first + parent]
        hole = parent
        parent = (hole - 1) // 2
    keys[first + hole], items[first + hole] = key, item
