"""`tf.GradientTape` on Dagscope's autograd: the tape is the engine's recorded graph, seen through
TensorFlow's rules.

- TF ops record a backward node only while a tape is recording (engine grad mode is on then and
  off otherwise), and each node is stamped with the tapes that were recording when it ran.
- `watch(x)` makes x require grad; reading a trainable variable inside the tape watches it.
- `gradient()` runs the engine's `run_backward(..., inputs=sources)`. Nodes this tape did not
  record are cut for the duration of the call, so what flows back is exactly what *this* tape
  saw — an op run before the tape started, or only under another tape, is a constant to it, as
  in TensorFlow. The backward is recorded for the page like `loss.backward()`.
"""
from __future__ import annotations

import contextlib
import itertools
import weakref

import numpy as np

from engine import autograd, backward, record
from engine.compat.tensorflow import array_ops, context
from engine.compat.tensorflow.eager import EagerTensor, as_eager
from engine.compat.tensorflow.graph import GraphTensor
from engine.compat.tensorflow.nest import flatten, pack_like
from engine.errors import UnsupportedError
from engine.hooks import OP_APPLIED
from engine.tensor import Tensor as EngineTensor

_serials = itertools.count(1)
# Backward node -> serial numbers of the tapes that were recording when it was made.
_recorded_by: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


class UnconnectedGradients:
    NONE = "none"
    ZERO = "zero"


def _stamp(op, inputs, attrs, out) -> None:
    """hooks.OP_APPLIED observer, subscribed while any tape records: which tapes saw this op."""
    node = out.grad_fn
    if node is not None and node not in _recorded_by:
        _recorded_by[node] = frozenset(t._serial for t in context.state().tapes)


def _set_stamping(on: bool) -> None:
    if on and _stamp not in OP_APPLIED:
        OP_APPLIED.append(_stamp)
    elif not on and _stamp in OP_APPLIED:
        OP_APPLIED.remove(_stamp)


# ---- the tape ------------------------------------------------------------------------------------------

class GradientTape:
    def __init__(self, persistent: bool = False, watch_accessed_variables: bool = True):
        self._persistent = persistent
        self._watch_accessed_variables = watch_accessed_variables
        self._serial = next(_serials)
        self._watched: dict[int, EngineTensor] = {}      # id -> watched tensor (kept alive)
        self._variables: dict[int, object] = {}          # id -> watched tf.Variable
        self._used = False

    def __enter__(self) -> "GradientTape":
        if context.building_graph():
            raise UnsupportedError("tf.GradientTape in TF1 graph mode is not supported by Dagscope (TF1 used "
                                   "tf.gradients); use it in eager code or inside tf.function.")
        self._start()
        return self

    def __exit__(self, *exc) -> bool:
        self._stop()
        return False

    def _start(self) -> None:
        tapes = context.state().tapes
        if self in tapes:
            raise ValueError("Tape is still recording, This can happen if you try to re-enter an already-active "
                             "tape.")
        tapes.append(self)
        _set_stamping(True)

    def _stop(self) -> None:
        tapes = context.state().tapes
        if self in tapes:
            tapes.remove(self)
        _set_stamping(bool(tapes))

    @contextlib.contextmanager
    def stop_recording(self):
        """Ops inside run without this tape recording them."""
        self._stop()
        try:
            yield
        finally:
            self._start()

    def reset(self) -> None:
        """Forget everything recorded so far (the tape keeps recording from here)."""
        self._watched.clear()
        self._variables.clear()
        self._serial = next(_serials)

    def watch(self, tensor) -> None:
        for t in flatten(tensor):
            if hasattr(t, "_dagscope_leaves"):
                self._variables[id(t)] = t
            elif isinstance(t, EngineTensor):
                if t.array.dtype.kind == "f":
                    t._requires_grad = True    # a watched result may be a non-leaf: no leaf-flag check
                self._watched[id(t)] = t
            elif isinstance(t, GraphTensor):
                raise UnsupportedError("GradientTape.watch on a TF1 graph tensor is not supported by Dagscope")
            else:
                raise ValueError(f"Passed in object {t!r} of type '{type(t).__name__}', not tf.Tensor or "
                                 "tf.Variable or ExtensionType.")

    def _variable_read(self, variable) -> None:
        if self._watch_accessed_variables and variable.trainable:
            self._variables[id(variable)] = variable

    def watched_variables(self) -> tuple:
        return tuple(self._variables.values())

    # ---- gradients --------------------------------------------------------------------------------------
    def gradient(self, target, sources, output_gradients=None, unconnected_gradients=UnconnectedGradients.NONE):
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True
        targets = [_value_of(t) for t in flatten(target)]
        seeds = self._seeds(targets, output_gradients)
        flat_sources = flatten(sources)
        _refuse_complex(targets + [_value_of(s) for s in flat_sources])
        per_source = [self._inputs_for(s) for s in flat_sources]
        unique = list({id(t): t for group in per_source for t in group}.values())
        grads_by_id = self._run_backward(targets, seeds, unique)
        results = []
        for source, group in zip(flat_sources, per_source):
            parts = [grads_by_id.get(id(t)) for t in group]
            parts = [p for p in parts if p is not None]
            # a target that is this very source (tape.gradient(v, v)): its gradient is the seed, as TF's tape
            # answers it; the backward gave it already when the source is watched, not otherwise
            if not group:
                parts += [EagerTensor(seed) for t, seed in zip(targets, seeds) if t is _value_of(source)]
            g = parts[0] if parts else None
            for p in parts[1:]:
                g = g + p
            if g is None and unconnected_gradients == UnconnectedGradients.ZERO:
                g = EagerTensor(np.zeros_like(np.asarray(_value_of(source).array)))
            results.append(None if g is None else as_eager(g))
        return pack_like(sources, results)

    def jacobian(self, target, sources, unconnected_gradients=UnconnectedGradients.NONE, parallel_iterations=None,
                 experimental_use_pfor=True):
        """d target[i...] / d source[j...] for every element pair: shape target.shape + source.shape.
        One backward per element of `target` (TensorFlow vectorizes them; the numbers are the same)."""
        target = _value_of(target)
        return self._jacobian(target, sources, unconnected_gradients, "tape.jacobian()",
                              [i for i in range(target.array.size)])

    def batch_jacobian(self, target, source, unconnected_gradients=UnconnectedGradients.NONE,
                       parallel_iterations=None, experimental_use_pfor=True):
        """Per example b of a batch: d target[b, i...] / d source[b, j...], shape [B] + target.shape[1:] +
        source.shape[1:]. As in TensorFlow, the examples are assumed independent: one backward per
        element of target[0] gives every example's row at once."""
        target, src = _value_of(target), _value_of(source)
        if target.array.ndim < 1 or src.array.ndim < 1 or target.array.shape[0] != src.array.shape[0]:
            raise ValueError(f"Need first dimension of target shape ({tuple(target.array.shape)}) and source shape "
                             f"({tuple(src.array.shape)}) to match.")
        rest = int(np.prod(target.array.shape[1:], dtype=np.int64))
        return self._jacobian(target, source, unconnected_gradients, "tape.batch_jacobian()",
                              [(slice(None), j) for j in range(rest)], batched=True)

    def _jacobian(self, target, sources, unconnected_gradients, call: str, rows: list, batched: bool = False):
        """One backward per row: seeded with 1 at `rows[n]` of the target (flattened, or flattened after
        the batch dim), 0 elsewhere; each source's gradients stacked into target dims + source dims."""
        if self._used and not self._persistent:
            raise RuntimeError("A non-persistent GradientTape can only be used to compute one set of gradients "
                               "(or jacobians)")
        self._used = True
        flat_sources = flatten(sources)
        per_source = [self._inputs_for(s) for s in flat_sources]
        unique = list({id(t): t for group in per_source for t in group}.values())
        shape = target.array.shape
        flat_shape = (shape[0], -1) if batched else (-1,)
        columns: list[list] = [[] for _ in flat_sources]
        connected = [False] * len(flat_sources)
        for n, row in enumerate(rows):
            seed = np.zeros(shape, dtype=target.array.dtype).reshape(flat_shape)
            seed[row] = 1
            grads = self._run_backward([target], [seed.reshape(shape)], unique,
                                       call=f"{call} (row 1 of {len(rows)})" if n == 0 else None)
            for k, (source, group) in enumerate(zip(flat_sources, per_source)):
                parts = [grads[id(t)] for t in group if id(t) in grads]
                connected[k] = connected[k] or bool(parts)
                g = parts[0] if parts else EagerTensor(np.zeros_like(np.asarray(_value_of(source).array)))
                for p in parts[1:]:
                    g = g + p
                columns[k].append(as_eager(g))
        results = []
        for k, source in enumerate(flat_sources):
            if not connected[k] and unconnected_gradients != UnconnectedGradients.ZERO:
                results.append(None)
                continue
            source_shape = tuple(np.shape(_value_of(source).array))
            if not columns[k]:                               # an empty target
                results.append(EagerTensor(np.zeros(shape + source_shape[batched:], _value_of(source).array.dtype)))
                continue
            stacked = array_ops.stack(columns[k], axis=int(batched))      # [(B,) rows, source dims...]
            results.append(array_ops.reshape(stacked, shape + source_shape[batched:]))
        return pack_like(sources, results)

    def _seeds(self, targets: list, output_gradients) -> list:
        if output_gradients is None:
            return [np.ones_like(t.array) for t in targets]
        given = flatten(output_gradients)
        return [np.asarray(getattr(_value_of(g), "array", g), dtype=t.array.dtype) for g, t in zip(given, targets)]

    def _inputs_for(self, source) -> list:
        """The engine tensors whose gradients make up `source`'s gradient (none if not watched)."""
        if hasattr(source, "_dagscope_leaves"):
            return source._dagscope_leaves() if id(source) in self._variables else []
        if not isinstance(source, EngineTensor):
            raise ValueError(f"Passed in object {source!r} of type '{type(source).__name__}', not tf.Tensor or "
                             "tf.Variable.")
        if id(source) in self._watched or self._recorded(source.grad_fn):
            return [source] if source.requires_grad else []
        return []

    def _recorded(self, node) -> bool:
        return node is not None and self._serial in _recorded_by.get(node, ())

    def _run_backward(self, targets: list, seeds: list, inputs: list, call: str | None = "tape.gradient()") -> dict:
        """The gradients of `targets` (seeded) for `inputs`, by id; recorded for the page as `call`
        (None: not recorded, e.g. the rows of a jacobian after its first)."""
        roots = [(t, s) for t, s in zip(targets, seeds) if t.requires_grad]
        if not roots or not inputs:
            return {}
        cut = self._cut_foreign_nodes([t for t, _ in roots])
        # Gradient ops are themselves recorded when a tape is still recording (higher derivatives),
        # and inside a tf.function trace, where they must become graph nodes, not numbers.
        st = context.state()
        create_graph = bool(st.tapes) or st.tracing is not None
        try:
            with _backward_recorded(roots[0][0], st.tracing is None and call is not None, call):
                grads = backward.run_backward([t for t, _ in roots], [s for _, s in roots], retain_graph=True,
                                              create_graph=create_graph, inputs=inputs, allow_unused=True)
        finally:
            for node, edges in cut:
                node.next_functions = edges
        return {id(t): g for t, g in zip(inputs, grads) if g is not None}

    def _cut_foreign_nodes(self, roots: list) -> list:
        """Cut the inputs of reachable nodes this tape did not record; returns how to restore them."""
        cut, seen = [], set()
        stack = [t.grad_fn for t in roots if t.grad_fn is not None]
        while stack:
            node = stack.pop()
            if id(node) in seen or isinstance(node, autograd.AccumulateGrad):
                continue
            seen.add(id(node))
            if not self._recorded(node):
                cut.append((node, node.next_functions))
                node.next_functions = tuple((None, 0) for _ in node.next_functions)
                continue
            stack.extend(nxt for nxt, _ in node.next_functions if nxt is not None)
        return cut


def _value_of(x):
    if hasattr(x, "_dagscope_value"):
        return x._leaf
    if isinstance(x, GraphTensor):
        raise UnsupportedError("GradientTape.gradient of a TF1 graph tensor is not supported by Dagscope")
    if not isinstance(x, EngineTensor):
        raise ValueError(f"Passed in object {x!r} of type '{type(x).__name__}', not tf.Tensor or tf.Variable.")
    return x


@contextlib.contextmanager
def _backward_recorded(root, wanted: bool, call: str = "tape.gradient()"):
    """Record this backward for the page as `loss.backward()` is, titled as what the user called
    (not while a tf.function traces: that backward is part of the captured graph)."""
    rec = record.current()
    if rec is None or not wanted:
        yield
        return
    with record.backward_call(root, True, call=f": {call}"):
        yield


def _refuse_complex(tensors: list) -> None:
    """TensorFlow differentiates complex tensors; Dagscope's autograd is real-valued, so it says so
    rather than answer None (which would read as "not connected")."""
    for t in tensors:
        if isinstance(t, EngineTensor) and t.array.dtype.kind == "c":
            raise UnsupportedError("gradients of complex tensors are not supported by Dagscope (its autograd is "
                                   "real-valued): split them with real and imaginary float tensors")
