"""Define-by-run autograd, as PyTorch's: every op on a tensor that requires grad records a Node
(its grad_fn); `backward()` orders the nodes and walks them in reverse, sending gradients on.

Read `run_backward` first: it is a dependency count, a ready queue and a loop — the whole engine.
"""
from __future__ import annotations

import gc
import heapq
import itertools
import re
import sys
import weakref
from typing import Callable

import numpy as np

from engine.hooks import BACKWARD_STEP, NODE_MADE
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

class NodeName(str):
    """A node's name: text to the engine (`node.name`) and, called, PyTorch's `grad_fn.name()`."""
    __slots__ = ()

    def __call__(self) -> str:
        return str(self)


def _optional_slot(slot: str, doc: str) -> property:
    """A property over a slot that only some nodes set: None where it is unset."""
    def read(node):
        try:
            return getattr(node, slot)
        except AttributeError:
            return None
    return property(read, lambda node, value: setattr(node, slot, value), doc=doc)


class Node(weakref.ref):
    """A backward function (PyTorch's grad_fn): the op that made a tensor, its saved inputs, and
    `next_functions`, the nodes its gradients flow on to.

    `record_node` makes one for every recorded op — the eager hot path — so a node stores only
    what must be snapshotted when the op runs: its inputs (`saved`), its output's value, the
    nodes its gradients go to (`edges`) and its place in the run (`seq`). The rest is shared:
    each grad_fn name has its own subclass (`type(y.grad_fn).__name__ == "MulBackward0"`, as in
    PyTorch), which carries the op and the name, and the fields most nodes never change are
    class-level defaults, set per node only when they differ (an in-place op moving the output,
    the recorder's source line). A node *is* the weak reference to its output tensor (`node()`):
    one object per recorded op rather than a node and a weakref."""

    # _line and _module: where in the user's code the op ran; set only while a recorder runs
    # (a hooks.NODE_MADE observer), read through `line` and `module`. Slots, not the per-node __dict__ that
    # rarely set fields use: a recorded run sets them on every node.
    __slots__ = ("saved", "out_data", "edges", "seq", "_line", "_module", "__dict__", "__weakref__")
    op = None                        # the OpDef (set on each subclass)
    name = NodeName("Node")          # PyTorch's grad_fn name (set on each subclass)
    attrs: dict = {}                 # the op's attributes (shared and never mutated when empty)
    versions = None                  # the inputs' version counters when the op ran; None if all 0
    out_version = 0                  # the output's version counter when the op ran
    moved_out = None                 # a weakref to the output, when an in-place op moved it
    freed = False                    # backward ran without retain_graph: saved values are gone
    # Identity semantics, as every node kind: a weakref would hash and compare by its referent.
    __hash__ = object.__hash__
    __eq__ = object.__eq__
    __ne__ = object.__ne__

    line = _optional_slot("_line", "The line of the user's code whose op made this node (None when no recorder ran).")
    module = _optional_slot("_module", "The nn.Module path (`fc1`) whose forward made this node, or None.")

    @property
    def out_ref(self):
        """A callable giving the output tensor (None once it is gone): the node itself, unless an
        in-place op made another tensor this node's output (`moved_out`)."""
        return self if self.moved_out is None else self.moved_out

    @out_ref.setter
    def out_ref(self, ref) -> None:
        self.moved_out = ref

    def output(self):
        """The output tensor, or None once it is gone."""
        return self() if self.moved_out is None else self.moved_out()

    def rename(self, name: str) -> None:
        """Show this node as `name` (an in-place op is AddBackward0 after `add_`, ZeroBackward0
        after `zero_`): it becomes an instance of that name's class, with every field kept."""
        self.__class__ = node_class(self.op, name)

    def __deepcopy__(self, memo):
        """A copy with every field deep-copied, except the output reference: it still finds this
        node's output, as the weakref it used to hold did."""
        import copy
        twin = type(self)(self)          # any live referent: the output is found via moved_out
        memo[id(self)] = twin
        for name in ("saved", "out_data", "edges", "seq", "_line", "_module"):
            if hasattr(self, name):
                setattr(twin, name, copy.deepcopy(getattr(self, name), memo))
        for name, value in self.__dict__.items():
            setattr(twin, name, copy.deepcopy(value, memo))
        twin.moved_out = self.out_ref
        return twin

    @property
    def next_functions(self) -> tuple:
        """PyTorch's ((node, input_nr), ...): one pair per input, None for an input without grad."""
        return tuple([(nxt, 0) for nxt in self.edges])

    @next_functions.setter
    def next_functions(self, pairs) -> None:
        self.edges = tuple([nxt for nxt, _ in pairs])

    @property
    def input_shapes(self) -> tuple:
        """Each input's shape, read from the saved inputs as the vjp reads their values (an
        in-place op keeps a tensor's shape: one that would broadcast it larger is refused)."""
        return tuple([t.array.shape for t in self.saved])

    def __repr__(self) -> str:
        return f"<{self.name} object>"

    def name_(self) -> str:
        return self.name

    def saved_items(self) -> list:
        """What this node's vjp reads: input indices and/or "out" (a Python-scalar constant counts,
        as PyTorch saves the `2` of x * 2: a second backward through it is an error)."""
        saves = self.op.saves
        if self.op.saves_for is not None:
            saves = {s for i, nxt in enumerate(self.edges) if nxt is not None
                     for s in self.op.saves_for.get(i, ())}
        elif saves is None:
            saves = range(len(self.saved))
        return list(saves)

    def has_saved_tensors(self) -> bool:
        return bool(self.saved_items())

    def recorded_version(self, i: int) -> int:
        """Input i's version counter when the op ran (`versions` is None when all were 0)."""
        return 0 if self.versions is None else self.versions[i]

    def _check_versions(self) -> None:
        """PyTorch's error when a tensor this node saved was changed in place after the op ran
        (its vjp would read the new value and give a wrong gradient)."""
        out = self.output()
        for item in self.saved_items():
            t, expected = ((out, self.out_version) if item == "out"
                           else (self.saved[item], self.recorded_version(item)))
            if t is not None and t._version != expected:
                # PyTorch names the op that made the tensor: for a saved output, this node ("output 0
                # of Exp" after exp(x).add_(1)); for a saved input, its grad_fn now ("output 0 of Add"
                # after y.add_(1): the in-place op's node)
                maker = self if item == "out" else t.grad_fn
                op_name = re.sub(r"Backwards?\d*$", "", maker.name) if maker is not None else ""
                where = f", which is output 0 of {op_name}," if op_name else ""
                raise RuntimeError(
                    "one of the variables needed for gradient computation has been modified by an inplace "
                    f"operation: [{t.type()} [{', '.join(map(str, t.array.shape))}]]{where} is at version "
                    f"{t._version}; expected version {expected} instead. Hint: enable anomaly detection to find "
                    "the operation that failed to compute its gradient, with "
                    "torch.autograd.set_detect_anomaly(True, check_nan=False).")

    def apply(self, builder, grad, create_graph: bool) -> tuple:
        """Gradients for each input, from the op's vjp rule (or its masked form when some input
        needs none: PyTorch's needs_input_grad; the input of the first Linear layer, for one,
        would cost a whole matmul). Unrolled for one and two inputs: this runs once per node of
        every backward pass."""
        if self.freed and self.has_saved_tensors():
            raise RuntimeError(SECOND_BACKWARD)
        saved, versions, edges = self.saved, self.versions, self.edges
        out_tensor = self() if self.moved_out is None else self.moved_out()
        n = len(saved)
        if n == 2:
            a, b = saved
            changed = (a._version or b._version) if versions is None else ((a._version, b._version) != versions)
        elif n == 1:
            a = saved[0]
            changed = a._version if versions is None else (a._version,) != versions
        elif versions is None:
            changed = any([t._version for t in saved])
        else:
            changed = tuple([t._version for t in saved]) != versions
        if changed or (out_tensor is not None and out_tensor._version != self.out_version):
            self._check_versions()
        if create_graph:
            out = out_tensor if out_tensor is not None else self.out_data
        else:
            out = self.out_data
        op, attrs = self.op, self.attrs
        if op.numpy_vjp is not None and builder is NUMPY:
            if n == 2:
                grads = op.numpy_vjp((edges[0] is not None, edges[1] is not None), grad, a.array, b.array, out,
                                     **attrs)
            elif n == 1:
                grads = op.numpy_vjp((True,), grad, a.array, out, **attrs)
            else:
                grads = op.numpy_vjp(tuple([nxt is not None for nxt in edges]), grad, *[t.array for t in saved],
                                     out, **attrs)
            if grads is not None:
                return grads
        masked = op.vjp_masked is not None and None in edges
        if n == 2 and not attrs:
            if not create_graph:
                a, b = a.array, b.array
            if masked:
                return op.vjp_masked(builder, (edges[0] is not None, edges[1] is not None), grad, a, b, out)
            return op.vjp(builder, grad, a, b, out)
        if n == 1:
            a = a if create_graph else a.array
            return (op.vjp_masked(builder, (False,), grad, a, out, **attrs) if masked
                    else op.vjp(builder, grad, a, out, **attrs))
        inputs = saved if create_graph else [t.array for t in saved]
        if masked:
            return op.vjp_masked(builder, tuple([nxt is not None for nxt in edges]), grad, *inputs, out, **attrs)
        return op.vjp(builder, grad, *inputs, out, **attrs)

    def release(self) -> None:
        """Free what backward no longer needs, as PyTorch does unless retain_graph=True. (Whether
        anything was saved is only asked if a second backward reaches this node.)"""
        self.freed = True


_next_seq = _seq.__next__
# Keyed by the OpDef's id (and checked against the class's op): an OpDef replaced in OPS, as a
# test may do, gets classes of its own.
_NODE_CLASSES: dict = {}     # (id(op), grad_fn name) -> its Node subclass
_OP_NODE_CLASS: dict = {}    # id(op) -> its Node subclass, for ops with one grad_fn name


def node_class(op, name: str) -> type:
    """The Node subclass for registered op `op` when its grad_fn is called `name` (made on first
    use: PyTorch has one class per backward function, and so `type(grad_fn).__name__` is its name)."""
    key = (id(op), name)
    cls = _NODE_CLASSES.get(key)
    if cls is None or cls.op is not op:
        cls = _NODE_CLASSES[key] = type(name, (Node,), {"__slots__": (), "op": op, "name": NodeName(name),
                                                        "__module__": __name__})
    return cls


def fixed_node_class(op) -> type | None:
    """The node class of a differentiable op whose grad_fn name does not depend on its inputs, else
    None (the eager operators bind it once: see engine/tensor.py and engine/native)."""
    return node_class(op, op.grad_fn) if op.differentiable and type(op.grad_fn) is str else None


def op_node_class(op, inputs: tuple, attrs: dict) -> type:
    """The class of the node that records `op` applied to `inputs` (a name may depend on them)."""
    cls = _OP_NODE_CLASS.get(id(op))
    if cls is not None and cls.op is op:
        return cls
    name = op.grad_fn
    if type(name) is str:
        cls = _OP_NODE_CLASS[id(op)] = node_class(op, name)
        return cls
    return node_class(op, op.grad_fn_name(*inputs, **attrs))


def record_node(op, inputs: tuple, attrs: dict, out) -> Node:
    """`out`'s grad_fn for registered op `op` applied to Tensors `inputs`. This runs once per
    recorded op (the eager hot path), hence the unrolled common arities and only the stores a
    node needs: the input version counters are kept only when one is not 0."""
    node = op_node_class(op, inputs, attrs)(out)
    node.saved = inputs                  # the input Tensors (kept alive until the graph is dropped)
    node.out_data = out.array
    if attrs:
        node.attrs = attrs
    if len(inputs) == 2:
        a, b = inputs
        node.edges = ((a.grad_fn or gradient_edge(a)) if a.requires_grad else None,
                      (b.grad_fn or gradient_edge(b)) if b.requires_grad else None)
        if a._version or b._version:     # in-place ops bump versions: see _check_versions
            node.versions = (a._version, b._version)
    elif len(inputs) == 1:
        a = inputs[0]
        node.edges = ((a.grad_fn or gradient_edge(a)) if a.requires_grad else None,)
        if a._version:
            node.versions = (a._version,)
    else:                                # one loop, not two generator expressions
        edges, versions = [], []
        for t in inputs:
            edges.append((t.grad_fn or gradient_edge(t)) if t.requires_grad else None)
            versions.append(t._version)
        node.edges = tuple(edges)
        if any(versions):
            node.versions = tuple(versions)
    node.seq = _next_seq()
    if NODE_MADE:                        # the recorder notes where in the user's code it was made
        for observer in NODE_MADE:
            observer(node)
    return node


class AccumulateGrad:
    """The sink node of a leaf tensor: adds the arriving gradient into `variable.grad`."""

    __slots__ = ("variable", "seq", "next_functions", "__weakref__", "line", "module")
    name = NodeName("AccumulateGrad")
    edges = ()                           # a sink: no gradient flows on

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

def _edges(node) -> tuple:
    """The nodes `node` sends gradients to (None for an input without grad), for any node kind:
    Node and AccumulateGrad keep them as `edges`; others (custom Functions) as next_functions."""
    if isinstance(node, (Node, AccumulateGrad)):
        return node.edges
    return tuple([nxt for nxt, _ in node.next_functions])


def _dependencies(roots) -> dict:
    """How many consumers each reachable node has (iterative: graphs may be 200,000 nodes deep)."""
    deps: dict = {}
    stack = [r for r in roots if r is not None]
    queued = set(stack)
    while stack:
        node = stack.pop()
        for nxt in (node.edges if isinstance(node, Node) else _edges(node)):
            if nxt is None:
                continue
            if nxt in deps:
                deps[nxt] += 1
            else:                        # first consumer: walk on from it (unless it is a root
                deps[nxt] = 1            # or a leaf's accumulator, which sends nothing on)
                if type(nxt) is not AccumulateGrad and nxt not in queued:
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


def backward(root, grad, retain_graph: bool, create_graph: bool, inputs: list | None) -> None:
    """Tensor.backward: accumulate gradients into the leaves' .grad or, given `inputs`, into those
    tensors' .grad only (leaves or not), as PyTorch's backward(inputs=...)."""
    if inputs is None:
        run_backward([root], [grad], retain_graph=retain_graph, create_graph=create_graph)
        return
    grads = run_backward([root], [grad], retain_graph=retain_graph, create_graph=create_graph, inputs=inputs,
                         allow_unused=True)
    for t, g in zip(inputs, grads):
        if g is not None:                # (a non-leaf's hooks ran in the walk, when its node did)
            _accumulate_into_leaf(t, g, create_graph, run_hooks=t.grad_fn is None)


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
    heappush, heappop = heapq.heappush, heapq.heappop
    results: list = [None] * (len(inputs) if inputs is not None else 0)
    observers = BACKWARD_STEP
    prev_mode = is_grad_enabled()
    _GradMode.enabled = create_graph
    node = heappop(ready)[2] if ready else None
    try:
        while node is not None:
            grad = pending.pop(node, None)
            if capture and id(node) in capture:
                results[capture[id(node)]] = grad
            if type(node) is AccumulateGrad:
                if grad is not None:
                    if inputs is None:
                        in_grads = None          # the previous node's list may still hold this array
                        owned = not create_graph and not observers and _unshared(grad)
                        _accumulate_into_leaf(node.variable, grad, create_graph, owned)
                    for cb in observers:         # autograd.grad's walks are shown too
                        cb(node, grad, ())
                node = heappop(ready)[2] if ready else None
                continue
            is_node = isinstance(node, Node)
            if is_node:
                edges = node.edges
                out = node() if node.moved_out is None else node.moved_out()
            else:
                edges = _edges(node)
                out = node.out_ref()
            if grad is None:
                in_grads = (None,) * len(edges)
            else:
                if out is not None:
                    if out._hooks:
                        grad = _run_tensor_hooks(out, grad, builder)
                    if out._retains_grad and inputs is None:     # accumulated, as a leaf's .grad
                        _accumulate_into_leaf(out, grad, create_graph, run_hooks=False)
                in_grads = node.apply(builder, grad, create_graph)
                if observers:
                    in_grads = _reduce_to_inputs(builder, node, in_grads)
                    for cb in observers:
                        cb(node, grad, in_grads)
            if not retain_graph:
                if is_node:
                    node.freed = True            # Node.release, inlined
                else:
                    node.release()
            # The next node is the ready one made last (highest seq). Usually exactly one node
            # becomes ready and none was waiting (a chain): it runs next without the heap.
            after = None
            # (A Node reads its inputs' shapes from the inputs themselves: see Node.input_shapes.)
            for nxt, g, src in zip(edges, in_grads, node.saved if is_node else node.input_shapes):
                if nxt is None:
                    continue
                if g is not None:
                    shape = src.array.shape if is_node else src
                    if g.shape != shape and tuple(g.shape) != tuple(shape):   # _reduce_to_inputs, inlined
                        g = builder.sum_to_size(g, shape=tuple(shape))
                    old = pending.get(nxt)
                    pending[nxt] = g if old is None else builder.add(old, g)
                left = deps[nxt] - 1
                deps[nxt] = left
                if not left:
                    if after is None and not ready:
                        after = nxt
                    else:
                        if after is not None:
                            heappush(ready, (-after.seq, id(after), after))
                            after = None
                        heappush(ready, (-nxt.seq, id(nxt), nxt))
            g = old = None               # drop loop references: a leaf may then keep its gradient uncopied
            node = after if after is not None else (heappop(ready)[2] if ready else None)
    finally:
        _GradMode.enabled = prev_mode
    if inputs is not None:
        for i, (t, r) in enumerate(zip(inputs, results)):
            if r is None and not allow_unused:
                raise RuntimeError(f"The differentiated Tensor at index {i} appears to not have been used in "
                                   "the graph. Set allow_unused=True if this is the desired behavior.")
            if r is not None and not isinstance(r, Tensor):
                results[i] = Tensor(r)
        return tuple(results)
    return None


def _reduce_to_inputs(builder, node, in_grads) -> tuple:
    """Undo broadcasting: each input's gradient is summed down to that input's shape."""
    out = list(in_grads)
    for i, (g, shape, nxt) in enumerate(zip(in_grads, node.input_shapes, _edges(node))):
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


def _accumulate_into_leaf(t, grad, create_graph: bool, owned: bool = False, run_hooks: bool = True) -> None:
    Tensor = _TENSOR_CLASSES[0] if _TENSOR_CLASSES else _tensor_classes()[0]
    if t._hooks and run_hooks:
        grad = _run_tensor_hooks(t, grad, NUMPY if not create_graph else None)
        owned = False
    if isinstance(grad, Tensor) and not create_graph:
        grad = grad.array
    if t.grad is None:
        if owned and grad.dtype == t.array.dtype:
            t._grad = Tensor(grad)
        elif create_graph and isinstance(grad, Tensor) and grad.requires_grad:
            # Recorded, as PyTorch copies the gradient into a fresh .grad (a CopyBackwards node), so
            # that .grad is not the very tensor a later op of the graph may change.
            from engine.tensor import apply
            t._grad = apply("clone", grad)
            t.grad.grad_fn.rename("CopyBackwards")
        else:
            # A copy (the same array may reach several leaves), in C order: a gradient that arrives
            # as a transposed view would keep a layout that slows every later op on .grad.
            t._grad = Tensor(np.array(grad.array if isinstance(grad, Tensor) else grad, dtype=t.array.dtype,
                                     copy=True, order="C"))
    elif create_graph:
        t._grad = t.grad + grad
    else:
        # In place, as PyTorch accumulates: a reference to x.grad taken earlier sees the sum.
        t.grad.array += grad
