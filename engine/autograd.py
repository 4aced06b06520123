"""Define-by-run autograd, as PyTorch's: every op on a tensor that requires grad records a Node
(its grad_fn); `backward()` orders the nodes and walks them in reverse, sending gradients on.

This module is the graph, below Tensor: grad mode, the Node classes, how an op records one, and the
leaves' AccumulateGrad. The walk that runs backward over it is engine/backward.py (above Tensor).
"""
from __future__ import annotations

import copy
import itertools
import re
import weakref
from typing import Callable

from engine.compat.torch_class_names import TorchClassRepr
from engine.hooks import NODE_MADE
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


class _SetGrad(metaclass=TorchClassRepr):
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


class _AccumulateGradName(NodeName):
    """AccumulateGrad's name: the engine and the page call it AccumulateGrad (PyTorch's class name,
    and what its graph printouts say), but PyTorch's grad_fn.name() answers with the C++ name."""
    __slots__ = ()

    def __call__(self) -> str:
        return "torch::autograd::AccumulateGrad"


class AccumulateGrad:
    """The sink node of a leaf tensor: adds the arriving gradient into `variable.grad`."""

    __slots__ = ("variable", "seq", "next_functions", "__weakref__", "line", "module")
    name = _AccumulateGradName("AccumulateGrad")
    edges = ()                           # a sink: no gradient flows on

    def __init__(self, variable):
        self.variable = variable
        self.seq = float("inf")              # PyTorch runs these as soon as they are ready
        self.next_functions = ()
        self.line = None
        self.module = None

    def name_(self) -> str:
        return self.name

    def __lt__(self, other) -> bool:
        # The ready heap holds (-seq, node): every AccumulateGrad has the same seq, and PyTorch's
        # ready queue (a std::priority_queue on sequence_nr alone) treats them as equal, so their
        # order is the heap's own. heapq moves items exactly as libstdc++'s push_heap/pop_heap do,
        # so equal entries (never ordered by address, which changed from run to run) come out
        # in PyTorch's order.
        return False

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
