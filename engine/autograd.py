"""Define-by-run autograd, as PyTorch's: every op on a tensor that requires grad records a Node
(its grad_fn); `backward()` orders the nodes and walks them in reverse, sending gradients on.

Read `run_backward` first: it is a dependency count, a ready queue and a loop — the whole engine.
"""
from __future__ import annotations

import gc
import heapq
import itertools
import sys
import weakref
from typing import Callable

import numpy as np

from engine.ops.builder import NUMPY

SECOND_BACKWARD = (
    "Trying to backward through the graph a second time (or directly access saved tensors after "
    "they have already been freed). Saved intermediate values of the graph are freed when you call "
    ".backward() or autograd.grad(). Specify retain_graph=True if you need to backward through the "
    "graph a second time or if you need to access saved tensors after calling backward.")

_seq = itertools.count()


# ---- grad mode --------------------------------------------------------------------------------

class _GradMode:
    enabled = True


def is_grad_enabled() -> bool:
    return _GradMode.enabled


class _SetGrad:
    """Context manager and decorator that sets grad mode, restoring the previous one on exit."""
    mode = True

    def __enter__(self):
        self._prev = _GradMode.enabled
        _GradMode.enabled = self.mode
        return self

    def __exit__(self, *exc):
        _GradMode.enabled = self._prev
        return False

    def __call__(self, fn: Callable):
        cls = type(self)

        def wrapper(*args, **kwargs):
            with cls():
                return fn(*args, **kwargs)
        wrapper.__name__ = getattr(fn, "__name__", "wrapper")
        wrapper.__doc__ = getattr(fn, "__doc__", None)
        return wrapper


class no_grad(_SetGrad):
    mode = False


class enable_grad(_SetGrad):
    mode = True


class set_grad_enabled(_SetGrad):
    def __init__(self, mode: bool):
        self.mode = bool(mode)
        self._prev = _GradMode.enabled
        _GradMode.enabled = self.mode   # like PyTorch, it also works as a plain function call

    def __enter__(self):
        return self


# ---- graph nodes --------------------------------------------------------------------------------

class Node:
    """A backward function (PyTorch's grad_fn): the op that made a tensor, its saved inputs, and
    `next_functions`, the nodes its gradients flow on to."""

    __slots__ = ("op", "name", "attrs", "saved", "out_data", "out_ref", "next_functions", "seq",
                 "freed", "line", "module", "input_shapes", "versions", "out_version", "__weakref__")

    def __init__(self, op, inputs: tuple, attrs: dict, out):
        self.op = op
        self.name = op.grad_fn if type(op.grad_fn) is str else op.grad_fn_name(*inputs, **attrs)
        self.attrs = attrs
        self.saved = inputs                  # the input Tensors (kept alive until backward frees them)
        self.out_data = out.array
        self.out_ref = weakref.ref(out)
        # gradient_edge(t), inlined: this constructor runs once per recorded op (the eager hot path)
        if len(inputs) == 2:
            a, b = inputs
            self.next_functions = (((a.grad_fn or gradient_edge(a)) if a.requires_grad else None, 0),
                                   ((b.grad_fn or gradient_edge(b)) if b.requires_grad else None, 0))
            self.input_shapes = (a.array.shape, b.array.shape)
            self.versions = (a._version, b._version)
        elif len(inputs) == 1:
            (a,) = inputs
            self.next_functions = (((a.grad_fn or gradient_edge(a)) if a.requires_grad else None, 0),)
            self.input_shapes = (a.array.shape,)
            self.versions = (a._version,)
        else:                                # one loop, not three generator expressions
            edges, shapes, versions = [], [], []
            for t in inputs:
                edges.append(((t.grad_fn or gradient_edge(t)) if t.requires_grad else None, 0))
                shapes.append(t.array.shape)
                versions.append(t._version)
            self.next_functions, self.input_shapes, self.versions = tuple(edges), tuple(shapes), tuple(versions)
        self.out_version = out._version      # in-place ops bump versions: see _check_versions
        self.seq = next(_seq)
        self.freed = False
        self.line = None
        self.module = None

    def __repr__(self) -> str:
        return f"<{self.name} object>"

    def name_(self) -> str:
        return self.name

    def saved_items(self) -> list:
        """What this node's vjp reads: input indices and/or "out" (Python-scalar constants excluded)."""
        saves = self.op.saves
        if self.op.saves_for is not None:
            saves = {s for i, (nxt, _) in enumerate(self.next_functions) if nxt is not None
                     for s in self.op.saves_for.get(i, ())}
        elif saves is None:
            saves = range(len(self.saved))
        return [s for s in saves if s == "out" or not getattr(self.saved[s], "_is_scalar", False)]

    def has_saved_tensors(self) -> bool:
        return bool(self.saved_items())

    def _check_versions(self) -> None:
        """PyTorch's error when a tensor this node saved was changed in place after the op ran
        (its vjp would read the new value and give a wrong gradient)."""
        out = self.out_ref()
        for item in self.saved_items():
            t, expected = ((out, self.out_version) if item == "out"
                           else (self.saved[item], self.versions[item]))
            if t is not None and t._version != expected:
                where = f", which is output 0 of {t.grad_fn.name}," if t.grad_fn is not None else ""
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} [{', '.join(map(str, t.array.shape))}]]{where} is at version "
                    f"{t._version}; expected version {expected} instead. Hint: enable anomaly detection to find "
                    "the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True).")

    def apply(self, builder, grad, create_graph: bool) -> tuple:
        """Gradients for each input, from the op's vjp rule."""
        if self.freed and self.has_saved_tensors():
            raise RuntimeError(SECOND_BACKWARD)
        saved = self.saved
        versions = ((saved[0]._version, saved[1]._version) if len(saved) == 2
                    else tuple(t._version for t in saved))
        out_tensor = self.out_ref()
        if versions != self.versions or (out_tensor is not None and out_tensor._version != self.out_version):
            self._check_versions()
        if create_graph:
            inputs = self.saved
            out = self.out_ref() if self.out_ref() is not None else self.out_data
        else:
            inputs = [t.array for t in self.saved]
            out = self.out_data
        op = self.op
        if op.vjp_masked is not None:
            # Skip gradients nobody receives (PyTorch's needs_input_grad): the input of the first
            # Linear layer, for one, would cost a whole matmul.
            needs = tuple(nxt is not None for nxt, _ in self.next_functions)
            if not all(needs):
                return op.vjp_masked(builder, needs, grad, *inputs, out, **self.attrs)
        return op.vjp(builder, grad, *inputs, out, **self.attrs)

    def release(self) -> None:
        """Free what backward no longer needs, as PyTorch does unless retain_graph=True. (Whether
        anything was saved is only asked if a second backward reaches this node.)"""
        self.freed = True


class AccumulateGrad:
    """The sink node of a leaf tensor: adds the arriving gradient into `variable.grad`."""

    __slots__ = ("variable", "seq", "next_functions", "__weakref__", "line", "module")
    name = "AccumulateGrad"

    def __init__(self, variable):
        self.variable = variable
        self.seq = float("inf")              # PyTorch runs these as soon as they are ready
        self.next_functions = ()
        self.line = None
        self.module = None

    def name_(self) -> str:
        return self.name

    def __repr__(self) -> str:
        return "<AccumulateGrad object>"


def gradient_edge(t):
    """The node a gradient for tensor `t` flows into: its grad_fn, or its leaf accumulator."""
    if not t.requires_grad:
        return None
    if t.grad_fn is not None:
        return t.grad_fn
    acc = t._accumulator() if t._accumulator is not None else None
    if acc is None:
        acc = AccumulateGrad(t)
        t._accumulator = weakref.ref(acc)
    return acc


# ---- the backward pass ----------------------------------------------------------------------------

class _StepObservers:
    """Callbacks told of each executed node (the recorder uses this to capture backprop steps)."""
    callbacks: list = []


def _dependencies(roots) -> dict:
    """How many consumers each reachable node has (iterative: graphs may be 200,000 nodes deep)."""
    deps: dict = {}
    seen = set()
    stack = [r for r in roots if r is not None]
    for r in stack:
        seen.add(r)
    while stack:
        node = stack.pop()
        for nxt, _ in node.next_functions:
            if nxt is None:
                continue
            deps[nxt] = deps.get(nxt, 0) + 1
            if nxt not in seen:
                seen.add(nxt)
                stack.append(nxt)
    return deps


def run_backward(roots: list, grads: list, retain_graph: bool = False, create_graph: bool = False,
                 inputs: list | None = None, allow_unused: bool = False):
    """Send `grads` back from `roots` (Tensors). With `inputs`, return their gradients instead of
    accumulating into `.grad` (this is `autograd.grad`)."""
    # The walk allocates many short-lived containers and creates no garbage cycles: pausing the
    # cyclic GC meanwhile saves ~10% per node (its collections would rescan the whole graph).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _walk(roots, grads, retain_graph, create_graph, inputs, allow_unused)
    finally:
        if collecting:
            gc.enable()


_TENSOR_CLASSES: tuple = ()


def _tensor_classes() -> tuple:
    """(Tensor, TensorBuilder), imported once: engine.tensor imports this module, and an import
    statement in the backward walk costs about a microsecond per call."""
    global _TENSOR_CLASSES
    if not _TENSOR_CLASSES:
        from engine.tensor import Tensor, TensorBuilder
        _TENSOR_CLASSES = (Tensor, TensorBuilder)
    return _TENSOR_CLASSES


def _walk(roots, grads, retain_graph, create_graph, inputs, allow_unused):
    Tensor, TensorBuilder = _tensor_classes()

    builder = TensorBuilder() if create_graph else NUMPY
    capture = {}
    if inputs is not None:
        capture = {id(gradient_edge(t)): i for i, t in enumerate(inputs) if t.requires_grad}
    root_nodes = [gradient_edge(r) for r in roots]
    pending: dict = {}
    for node, g in zip(root_nodes, grads):
        if node is not None:
            pending[node] = _accumulate(builder, pending.get(node), g)
    deps = _dependencies(root_nodes)
    ready = [(-n.seq, id(n), n) for n in dict.fromkeys(root_nodes) if n is not None and deps.get(n, 0) == 0]
    heapq.heapify(ready)
    results: list = [None] * (len(inputs) if inputs is not None else 0)
    observers = _StepObservers.callbacks
    prev_mode = is_grad_enabled()
    _GradMode.enabled = create_graph
    try:
        while ready:
            _, _, node = heapq.heappop(ready)
            grad = pending.pop(node, None)
            if capture and id(node) in capture:
                results[capture[id(node)]] = grad
            if isinstance(node, AccumulateGrad):
                if grad is not None:
                    if inputs is None:
                        in_grads = None          # the previous node's list may still hold this array
                        owned = not create_graph and not observers and _unshared(grad)
                        _accumulate_into_leaf(node.variable, grad, create_graph, owned)
                    for cb in observers:         # autograd.grad's walks are shown too
                        cb(node, grad, ())
                continue
            if grad is None:
                in_grads = (None,) * len(node.next_functions)
            else:
                out = node.out_ref()
                if out is not None:
                    if out._hooks:
                        grad = _run_tensor_hooks(out, grad, builder)
                    if out._retains_grad and inputs is None:
                        out.grad = _as_leaf_grad(grad)
                in_grads = node.apply(builder, grad, create_graph)
                if observers:
                    in_grads = _reduce_to_inputs(builder, node, in_grads)
                    for cb in observers:
                        cb(node, grad, in_grads)
            if not retain_graph:
                node.release()
            for (nxt, _), g, shape in zip(node.next_functions, in_grads, node.input_shapes):
                if nxt is None:
                    continue
                if g is not None:
                    if g.shape != shape and tuple(g.shape) != tuple(shape):   # _reduce_to_inputs, inlined
                        g = builder.sum_to_size(g, shape=tuple(shape))
                    old = pending.get(nxt)
                    pending[nxt] = g if old is None else builder.add(old, g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if not left:
                    heapq.heappush(ready, (-nxt.seq, id(nxt), nxt))
            g = old = None               # drop loop references: a leaf may then keep its gradient uncopied
    finally:
        _GradMode.enabled = prev_mode
    if inputs is not None:
        for i, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                raise RuntimeError("One of the differentiated Tensors appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
            if r is not None and not isinstance(r, Tensor):
                results[i] = Tensor(r)
        return tuple(results)
    return None


def _reduce_to_inputs(builder, node, in_grads) -> tuple:
    """Undo broadcasting: each input's gradient is summed down to that input's shape."""
    out = list(in_grads)
    for i, (g, shape, (nxt, _)) in enumerate(zip(in_grads, node.input_shapes, node.next_functions)):
        if g is None:
            continue
        if nxt is None:
            out[i] = None
        elif g.shape != shape and tuple(g.shape) != tuple(shape):
            out[i] = builder.sum_to_size(g, shape=tuple(shape))
    return out


def _accumulate(builder, old, new):
    return new if old is None else builder.add(old, new)


def _run_tensor_hooks(t, grad, builder):
    for hook in t._hooks:
        from engine.tensor import Tensor
        result = hook(grad if isinstance(grad, Tensor) else Tensor(grad))
        if result is not None:
            grad = result if builder is not NUMPY else np.asarray(result.array)
    return grad


def _as_leaf_grad(grad):
    from engine.tensor import Tensor
    return grad if isinstance(grad, Tensor) else Tensor(np.array(grad, copy=True))


def _refcounts(array) -> tuple[int, int]:
    base = array.base
    return sys.getrefcount(array), (0 if base is None else sys.getrefcount(base))


def _calibrate() -> tuple[int, int]:
    """The reference counts `_unshared` sees for an array that nothing but the caller's one local
    variable holds (interpreter versions count stack references differently: measure, don't assume).
    The probe has the same call depth as the real check: caller -> _unshared -> _refcounts."""
    def probe(grad):
        return _refcounts(grad)
    grad = np.empty(1)[::1]            # a view: calibrates the base's count too
    return probe(grad)


_UNSHARED_COUNTS = _calibrate()


def _unshared(grad) -> bool:
    """True when nothing but run_backward holds this gradient array (nor, for a view, its base),
    so AccumulateGrad may keep it as .grad without a copy, as PyTorch steals an unshared gradient."""
    if type(grad) is not np.ndarray or not grad.flags.c_contiguous:
        return False
    count, base_count = _refcounts(grad)
    return count <= _UNSHARED_COUNTS[0] and (grad.base is None or base_count <= _UNSHARED_COUNTS[1])


def _accumulate_into_leaf(t, grad, create_graph: bool, owned: bool = False) -> None:
    Tensor = _tensor_classes()[0]
    if t._hooks:
        grad = _run_tensor_hooks(t, grad, NUMPY if not create_graph else None)
        owned = False
    if isinstance(grad, Tensor) and not create_graph:
        grad = grad.array
    if t.grad is None:
        if owned and grad.dtype == t.array.dtype:
            t.grad = Tensor(grad)
        else:
            # A copy (the same array may reach several leaves), in C order: a gradient that arrives
            # as a transposed view would keep a layout that slows every later op on .grad.
            t.grad = grad if isinstance(grad, Tensor) else Tensor(
                np.array(grad, dtype=t.array.dtype, copy=True, order="C"))
    elif create_graph:
        t.grad = t.grad + grad
    else:
        # In place, as PyTorch accumulates: a reference to x.grad taken earlier sees the sum.
        t.grad.array += grad
