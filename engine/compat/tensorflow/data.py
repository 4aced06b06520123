"""`tf.data`: input pipelines over in-memory tensors — Dataset.from_tensor_slices / from_tensors /
range, then batch, shuffle, map, filter, take, skip, repeat, zip, concatenate, enumerate, unbatch
(prefetch and cache change nothing here), iterated eagerly: each element is a structure (tuple,
dict) of EagerTensors, as TensorFlow's eager iteration gives.

Inside a tf.function, `for x in dataset:` is one loop op, as AutoGraph makes it (a ReduceDataset):
the dataset is an input of the graph, which pulls its elements each time it runs (Dataset.iterate,
engine/ops/effects.py's iterator ops), so the body is traced once and another dataset of the same
element_spec reuses the trace. Dagscope's graphs have fixed shapes: every element must have the first
one's shape (a last, smaller batch is refused; batch with drop_remainder=True).

Differences from TensorFlow, on purpose: `map` and `filter` call the function on each element
eagerly (TensorFlow traces it once into a graph; the numbers are the same, but a Python `print`
inside runs per element here); `shuffle` draws from the run's seeded generator, so the order is
reproducible but is not the order TensorFlow's own generator gives.
"""
from __future__ import annotations

import itertools
import types

import numpy as np

from engine.compat.tensorflow import array_ops, context, dtypes
from engine.compat.tensorflow._surface import unsupported_names
from engine.compat.tensorflow.eager import EagerTensor
from engine.compat.tensorflow.function import TensorSpec
from engine.compat.tensorflow.nest import pack_like
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.errors import UnsupportedError

__all__ = ["Dataset", "AUTOTUNE", "experimental"]

AUTOTUNE = -1
INFINITE, UNKNOWN = -1, -2          # what cardinality() answers when it has no count


def _is_structure(value) -> bool:
    """Tuples (and namedtuples) and dicts are structures of components; a list is one tensor, as in tf.data."""
    return isinstance(value, (tuple, dict))


def _flatten(element) -> list:
    if isinstance(element, dict):
        return [x for k in sorted(element) for x in _flatten(element[k])]
    if isinstance(element, tuple):
        return [x for e in element for x in _flatten(e)]
    return [element]


def _pack(structure, flat: list):
    return pack_like(_as_template(structure), flat)


def _as_template(structure):
    """The structure with its lists as leaves (pack_like would descend into them)."""
    if isinstance(structure, dict):
        return type(structure)((k, _as_template(v)) for k, v in structure.items())
    if isinstance(structure, tuple):
        return type(structure)(*(_as_template(v) for v in structure)) if hasattr(structure, "_fields") \
            else tuple(_as_template(v) for v in structure)
    return 0


def _specs_of(types, shapes):
    """from_generator's output_types and output_shapes (None: unknown) as a structure of TensorSpecs."""
    if isinstance(types, dict):
        return type(types)((k, _specs_of(t, None if shapes is None else shapes[k])) for k, t in types.items())
    if isinstance(types, tuple):
        return tuple(_specs_of(t, None if shapes is None else shapes[i]) for i, t in enumerate(types))
    return TensorSpec(shapes, types)


def _stack(column: list):
    """A batch's component: eager elements stacked as arrays (tf.data is outside any gradient, and a
    stack op per batch through the engine took most of a small training loop's time); else tf.stack."""
    if context.state().tracing is None and all(type(t) is EagerTensor for t in column):
        return EagerTensor(np.stack([t.array for t in column]))
    return array_ops.stack(column)


def _spec_of(element):
    return _pack(element, [TensorSpec(t.shape, t.dtype) for t in _flatten(element)])


def _numpy(element):
    return _pack(element, [t.numpy() for t in _flatten(element)])


def _call(fn, element):
    """TF's rule: a tuple element is passed as separate arguments, anything else as one."""
    return fn(*element) if isinstance(element, tuple) and not hasattr(element, "_fields") else fn(element)


def _as_element(value):
    if _is_structure(value):
        return _pack(value, [convert_to_tensor(v) for v in _flatten(value)])
    return convert_to_tensor(value)


def _shuffled(it, size: int, rng):
    """TensorFlow's shuffle over any iterator: a buffer of `size` items, each output drawn uniformly
    from it and replaced by the next input."""
    buffer = []
    for e in it:
        buffer.append(e)
        if len(buffer) >= size:
            break
    for e in it:
        i = int(rng.integers(len(buffer)))
        yield buffer[i]
        buffer[i] = e
    while buffer:
        yield buffer.pop(int(rng.integers(len(buffer))))


class _Rows:
    """A dataset whose elements are rows of in-memory arrays (from_tensor_slices, then shuffle), in
    the order `order()` gives: batch() then gathers each batch's rows in one indexing per component
    instead of making a tensor per row and stacking them (that was most of a Keras epoch's time).
    The batches hold the same values; a traced pipeline keeps the element path (its stack is an op)."""

    def __init__(self, template, flat: bool, arrays: list, order):
        self.template, self.flat, self.arrays, self.order = template, flat, arrays, order

    def ordered(self, order) -> "_Rows":
        return _Rows(self.template, self.flat, self.arrays, order)

    def batches(self, size: int, drop_remainder: bool):
        it = self.order()
        while True:
            rows = list(itertools.islice(it, size))
            if not rows or (drop_remainder and len(rows) < size):
                return
            parts = [EagerTensor(a[rows]) for a in self.arrays]
            yield tuple(parts) if self.flat else pack_like(self.template, parts)


class Dataset:
    """A sequence of elements; each transformation returns a new Dataset (nothing runs until iterated)."""

    _kind = "Dataset"
    _rows: _Rows | None = None          # set when the elements are rows of arrays, in some order

    def __init__(self, elements, spec, cardinality: int):
        self._elements = elements          # a function returning a fresh iterator over the elements
        self._spec = spec
        self._cardinality = cardinality

    # ---- sources ----------------------------------------------------------------------------------
    @staticmethod
    def from_tensor_slices(tensors, name=None) -> "Dataset":
        components = [convert_to_tensor(t) for t in _flatten(tensors)]
        if not components or any(c.shape.rank == 0 for c in components):
            raise ValueError("Unbatching a tensor is only supported for rank >= 1")
        n = components[0].shape[0]
        for c in components[1:]:
            if c.shape[0] != n:
                raise ValueError(f"Dimensions {n} and {c.shape[0]} are not compatible")
        spec = _pack(tensors, [TensorSpec(c.shape[1:], c.dtype) for c in components])

        template, arrays = _as_template(tensors), [c.array for c in components]
        flat = type(template) is tuple and all(t == 0 for t in template)      # (x, y): the common case, fast

        def elements():
            for i in range(n):
                parts = [EagerTensor(np.array(a[i])) for a in arrays]
                yield tuple(parts) if flat else pack_like(template, parts)
        ds = _derived("_TensorSliceDataset", elements, spec, n)
        ds._rows = _Rows(template, flat, arrays, lambda: iter(range(n)))
        return ds

    @staticmethod
    def from_generator(generator, output_types=None, output_shapes=None, args=None, output_signature=None,
                       name=None) -> "Dataset":
        """Elements from calling `generator()` afresh for each pass, converted to the declared dtypes
        (`output_types`, or `output_signature`'s specs); its length is unknown, as TensorFlow's is."""
        if output_signature is None and output_types is None:
            raise TypeError("The `output_signature` argument must be set.")
        spec = output_signature if output_signature is not None else _specs_of(output_types, output_shapes)
        given = tuple(args) if args is not None else ()

        def elements():
            for value in generator(*given):
                specs = _flatten(spec)
                yield _pack(spec, [convert_to_tensor(v, dtype=sp.dtype) for v, sp in zip(_flatten(value), specs)])
        return _derived("_FlatMapDataset", elements, spec, UNKNOWN)

    @staticmethod
    def from_tensors(tensors, name=None) -> "Dataset":
        element = _as_element(tensors)
        return _derived("_TensorDataset", lambda: iter([element]), _spec_of(element), 1)

    @staticmethod
    def range(*args, output_type=dtypes.int64, name=None) -> "Dataset":  # noqa: A003 - TensorFlow's name
        values = range(*(int(a) for a in args))
        target = dtypes.as_dtype(output_type).np
        return _derived("_RangeDataset", lambda: (EagerTensor(np.asarray(v, target)) for v in values),
                        TensorSpec([], output_type), len(values))

    @staticmethod
    def zip(*datasets, name=None) -> "Dataset":
        datasets = datasets[0] if len(datasets) == 1 and isinstance(datasets[0], (tuple, dict)) else datasets
        parts = list(datasets.values()) if isinstance(datasets, dict) else list(datasets)
        counts = [d._cardinality for d in parts]
        finite = [c for c in counts if c >= 0]
        count = min(finite) if finite else (UNKNOWN if UNKNOWN in counts else INFINITE)

        def elements():
            for items in zip(*(iter(d) for d in parts)):
                yield dict(zip(datasets.keys(), items)) if isinstance(datasets, dict) else tuple(items)
        spec = {k: d._spec for k, d in datasets.items()} if isinstance(datasets, dict) else \
            tuple(d._spec for d in parts)
        return _derived("_ZipDataset", elements, spec, count)

    # ---- transformations ---------------------------------------------------------------------------
    def batch(self, batch_size, drop_remainder=False, num_parallel_calls=None, deterministic=None, name=None):
        size = int(batch_size)
        if size <= 0:
            raise ValueError(f"batch_size must be positive, got {size}")

        def elements():
            if self._rows is not None and context.state().tracing is None:
                yield from self._rows.batches(size, drop_remainder)
                return
            it = iter(self)
            while True:
                chunk = list(itertools.islice(it, size))
                if not chunk or (drop_remainder and len(chunk) < size):
                    return
                columns = zip(*(_flatten(e) for e in chunk))
                yield _pack(chunk[0], [_stack(list(c)) for c in columns])
        count = self._cardinality
        if count >= 0:
            count = count // size if drop_remainder else -(-count // size)
        lead = size if drop_remainder else None
        spec = _pack(self.element_spec, [TensorSpec([lead] + list(s.shape.dims or []), s.dtype)
                                  for s in _flatten(self.element_spec)])
        return _derived("_BatchDataset", elements, spec, count)

    def unbatch(self, name=None):
        def elements():
            for e in self:
                parts = _flatten(e)
                for i in range(parts[0].shape[0]):
                    yield _pack(e, [EagerTensor(np.array(p.array[i])) for p in parts])
        spec = _pack(self.element_spec, [TensorSpec(list(s.shape.dims or [None])[1:], s.dtype) for s in _flatten(self.element_spec)])
        return _derived("_UnbatchDataset", elements, spec, UNKNOWN if self._cardinality != INFINITE else INFINITE)

    def map(self, map_func, num_parallel_calls=None, deterministic=None, name=None):
        def elements():
            for e in self:
                yield _as_element(_call(map_func, e))
        return _MapDataset(elements, self)

    def filter(self, predicate, name=None):
        def elements():
            for e in self:
                keep = convert_to_tensor(_call(predicate, e))
                if keep.dtype != dtypes.bool or keep.shape.rank != 0:
                    raise ValueError("Invalid `predicate`. `predicate` must return a `tf.bool` scalar tensor, but its "
                                     f"return type was {TensorSpec(keep.shape, keep.dtype)!r}.")
                if bool(keep.numpy()):
                    yield e
        return _derived("_FilterDataset", elements, self.element_spec,
                        INFINITE if self._cardinality == INFINITE else UNKNOWN)

    def shuffle(self, buffer_size, seed=None, reshuffle_each_iteration=True, name=None):
        """TensorFlow's algorithm: a buffer of `buffer_size` elements, each output drawn uniformly from
        it and replaced by the next input (draws from the run's generator, not TensorFlow's)."""
        size = int(buffer_size)
        if size <= 0 and size != AUTOTUNE:
            raise ValueError(f"buffer_size must be greater than zero, got {size}")
        # with a seed, every epoch's order comes from one stream started from it (the same orders each
        # run); without reshuffling, every epoch starts that stream again (the same order each epoch)
        seed = int(seed) if seed is not None else int(context.state().rng.integers(2 ** 63))
        stream = np.random.default_rng(seed)

        def rng():
            return stream if reshuffle_each_iteration else np.random.default_rng(seed)
        ds = _derived("_ShuffleDataset", lambda: _shuffled(iter(self), size, rng()), self.element_spec,
                      self._cardinality)
        if self._rows is not None:          # the same draws, on row numbers: a later batch gathers rows
            ds._rows = self._rows.ordered(lambda: _shuffled(self._rows.order(), size, rng()))
        return ds

    def take(self, count, name=None):
        n, total = int(count), self._cardinality
        if n < 0 or total == UNKNOWN:
            card = total
        else:
            card = n if total == INFINITE else min(n, total)
        return _derived("_TakeDataset", lambda: iter(self) if n < 0 else itertools.islice(iter(self), n),
                        self.element_spec, card)

    def skip(self, count, name=None):
        n = int(count)
        total = self._cardinality
        card = total if total < 0 else (0 if n < 0 else max(total - n, 0))
        return _derived("_SkipDataset", lambda: itertools.islice(iter(self), max(n, 0), None) if n >= 0 else iter(()),
                        self.element_spec, card)

    def repeat(self, count=None, name=None):
        n = -1 if count is None else int(count)

        def elements():
            for _ in (itertools.count() if n < 0 else range(n)):
                yield from iter(self)
        total = self._cardinality
        card = INFINITE if n < 0 and total != 0 else (total * n if total >= 0 else total)
        ds = _derived("_RepeatDataset", elements, self.element_spec, card)
        if self._rows is not None:
            rows = self._rows
            ds._rows = rows.ordered(lambda: itertools.chain.from_iterable(
                rows.order() for _ in (itertools.count() if n < 0 else range(n))))
        return ds

    def enumerate(self, start=0, name=None):  # noqa: A003
        def elements():
            for i, e in enumerate(self, int(start)):
                yield EagerTensor(np.asarray(i, np.int64)), e
        return _derived("_EnumerateDataset", elements, (TensorSpec([], dtypes.int64), self.element_spec), self._cardinality)

    def concatenate(self, dataset, name=None):
        counts = (self._cardinality, dataset._cardinality)
        card = INFINITE if INFINITE in counts else (UNKNOWN if UNKNOWN in counts else sum(counts))
        return _derived("_ConcatenateDataset", lambda: itertools.chain(iter(self), iter(dataset)), self.element_spec, card)

    def prefetch(self, buffer_size, name=None):
        return _derived("_PrefetchDataset", lambda: iter(self), self.element_spec, self._cardinality)

    def cache(self, filename="", name=None):
        if filename:
            raise UnsupportedError("Dataset.cache(filename) is not supported by Dagscope (a run writes no files); "
                                   "cache() in memory is")
        return _derived("CacheDataset", lambda: iter(self), self.element_spec, self._cardinality)

    # ---- reading ----------------------------------------------------------------------------------------
    def __iter__(self):
        return iter(self._elements())

    # ---- a loop over the dataset in a tf.function (engine/ops/effects.py's iterator ops) --------------
    def iterate(self) -> "_Cursor":
        """A cursor over the elements, for the graph's `iterator_start`: one pass per run of the loop."""
        return _Cursor(iter(self))

    def _loop_components(self) -> tuple[list, object]:
        """([(shape, dtype)] of the element's components, a function packing components into an element),
        for a tf.function's loop over this dataset. A dimension the element_spec leaves unknown is taken
        from the first element (Dagscope's graphs have fixed shapes; the loop refuses other shapes)."""
        specs = _flatten(self.element_spec)
        shapes = [s.shape.dims if s.shape.dims is not None and None not in s.shape.dims else None for s in specs]
        if None in shapes:
            first = next(iter(self), None)
            if first is not None:
                shapes = [tuple(t.shape) if sh is None else sh for sh, t in zip(shapes, _flatten(first))]
        return [(tuple(sh or ()), s.dtype.np.name) for sh, s in zip(shapes, specs)], \
            lambda components: _pack(self.element_spec, components)

    def as_numpy_iterator(self):
        return (_numpy(e) for e in self)

    def cardinality(self):
        return EagerTensor(np.asarray(self._cardinality, np.int64))

    def __len__(self) -> int:
        if self._cardinality == INFINITE:
            raise TypeError("The dataset is infinite.")
        if self._cardinality == UNKNOWN:
            raise TypeError("The dataset length is unknown.")
        return self._cardinality

    def __bool__(self) -> bool:
        return True

    @property
    def element_spec(self):
        return self._spec

    def __repr__(self) -> str:
        return f"<{self._kind} element_spec={self.element_spec!r}>"


class _Cursor:
    """The iterator ops' cursor (engine/ops/effects.py): the current element's components as arrays."""

    def __init__(self, elements):
        self._elements, self._current = elements, []

    def advance(self) -> bool:
        element = next(self._elements, None)
        self._current = [] if element is None else [t.array for t in _flatten(element)]
        return element is not None

    def item(self, k: int) -> np.ndarray:
        return self._current[k]


def _derived(kind: str, elements, spec, cardinality: int) -> Dataset:
    ds = Dataset(elements, spec, cardinality)
    ds._kind = kind
    return ds


class _MapDataset(Dataset):
    """A mapped dataset; its element_spec is that of the function's first result (computed when asked)."""

    _kind = "_MapDataset"

    def __init__(self, elements, source: Dataset):
        super().__init__(elements, None, source._cardinality)

    @property
    def element_spec(self):
        if self._spec is None:
            first = next(iter(self), None)
            if first is None:
                raise UnsupportedError("the element_spec of a map over an empty dataset is not known to Dagscope")
            self._spec = _spec_of(first)
        return self._spec


experimental = types.SimpleNamespace(AUTOTUNE=AUTOTUNE, INFINITE_CARDINALITY=INFINITE,
                                     UNKNOWN_CARDINALITY=UNKNOWN)

__getattr__ = unsupported_names("tf.data", globals())
