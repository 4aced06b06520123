"""`tf.Variable` in eager mode: mutable state whose reads are leaf tensors of Dagscope's autograd.

A variable holds one leaf Tensor (requires_grad when trainable and floating). `assign` gives it a
new leaf rather than writing into the old array in place: an op recorded earlier keeps the value
it actually read (as TF's tape does), and gradients with respect to the variable add up over every
leaf it has had that a recorded graph still uses (a variable read before and after an assign
inside one tape gets both contributions, as in TensorFlow).

While a TF1 graph is being built, `tf.Variable(...)` makes a GraphVariable instead (below): a
"VariableV2" op whose value a Session holds, read and written by graph ops (training.py's
initializers and optimizers use it).
"""
from __future__ import annotations

import builtins
import weakref

import numpy as np

from engine import autograd
from engine.compat.tensorflow import context, dtypes, ops
from engine.compat.tensorflow.errors import InvalidArgumentError
from engine.compat.tensorflow.eager import EagerTensor, as_eager, infer_array, numpy_text
from engine.compat.tensorflow.graph import GraphTensor, default_graph
from engine.compat.tensorflow.operators import TensorOperators
from engine.errors import UnsupportedError
from engine.tensor import apply


class Variable(TensorOperators):
    def __new__(cls, *args, **kwargs):
        # While a TF1 graph is being built, tf.Variable(...) is a graph variable (training.py).
        if cls is Variable:
            cls = GraphVariable if context.building_graph() else ResourceVariable
        return object.__new__(cls)

    def __init__(self, initial_value=None, trainable=None, validate_shape=True, caching_device=None,
                 name=None, variable_def=None, dtype=None, import_scope=None, constraint=None,
                 synchronization=None, aggregation=None, shape=None, **kwargs):
        """tf.Variable's signature, read once for the eager and the graph variable (`_create`)."""
        if initial_value is None:
            raise ValueError("initial_value must be specified.")
        if callable(initial_value):
            initial_value = initial_value()      # TF's lazy initializer: a function giving the value
        self._trainable = True if trainable is None else bool(trainable)
        self._create(initial_value, name, dtype, validate_shape)
        tracing = context.state().tracing
        if tracing is not None:              # made by a tf.function's trace: it traces again (function.py)
            tracing.created_variables += 1

    def _create(self, initial_value, name, dtype, validate_shape: bool) -> None:
        if hasattr(initial_value, "_dagscope_value"):
            initial_value = initial_value._dagscope_value()
        arr = infer_array(initial_value, dtype)
        self._dtype = dtypes.as_dtype(arr.dtype)
        self._validate_shape = validate_shape
        self._name = name or "Variable"
        self._previous: list = []            # weakrefs to leaves replaced by assign
        self._leaf = self._make_leaf(arr)

    def _make_leaf(self, arr: np.ndarray) -> EagerTensor:
        leaf = EagerTensor(np.array(arr, dtype=self._dtype.np, copy=True))
        if self._trainable and self._dtype.is_floating:
            leaf.requires_grad = True
        leaf._name = self._name               # the recorder labels it by the variable's name
        return leaf

    # ---- reading -------------------------------------------------------------------------------------
    def _dagscope_value(self) -> EagerTensor:
        """The current leaf; a read inside a recording GradientTape makes the tape watch this variable."""
        st = context.state()
        for tape in st.tapes:
            tape._variable_read(self)
        if st.tracing is not None:
            return st.tracing.variable_value(self)     # inside tf.function: a graph input (or a new value)
        return self._leaf

    def _dagscope_graph_value(self, graph):
        raise TypeError(f"the eager variable {self.name} cannot be used in a TF1 graph; create it after "
                        "disable_eager_execution() so that it is a graph variable")

    def _dagscope_leaves(self) -> list[EagerTensor]:
        """Every leaf this variable has had that something still references (for gradients)."""
        self._previous = [r for r in self._previous if r() is not None]
        leaves = [self._leaf] + [r() for r in self._previous]
        tracing = context.state().tracing
        if tracing is not None and id(self) in tracing.assigned:    # its value in the trace now (a loop's, say)
            leaves.insert(0, tracing.assigned[id(self)][1])
        return leaves

    def value(self) -> EagerTensor:
        return self._dagscope_value()

    read_value = value

    def numpy(self):
        return self._leaf.array[()] if self._leaf.array.ndim == 0 else self._leaf.array.copy()

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> dtypes.TensorShape:
        return dtypes.TensorShape(self._leaf.array.shape)

    def get_shape(self) -> dtypes.TensorShape:
        return self.shape

    @property
    def name(self) -> str:
        return f"{self._name}:0"

    @property
    def trainable(self) -> bool:
        return self._trainable

    @property
    def device(self) -> str:
        return self._leaf.device

    # ---- writing --------------------------------------------------------------------------------------
    def assign(self, value, use_locking=None, name=None, read_value=True):
        tracing = context.state().tracing
        if tracing is not None:                # inside tf.function: the new value is a graph output
            new = ops.convert_to_tensor(value, dtype=self._dtype)
            if self._validate_shape and tuple(new.shape) != self._leaf.array.shape:
                raise ValueError(f"Cannot assign value of shape {new.shape} to variable {self.name} of shape "
                                 f"{self.shape}")
            tracing.assign_variable(self, new)
            return self if read_value else None
        if hasattr(value, "_dagscope_value"):
            value = value._dagscope_value()
        arr = infer_array(value, self._dtype)
        if self._validate_shape and arr.shape != self._leaf.array.shape:
            raise ValueError(f"Cannot assign value to variable ' {self.name}': Shape mismatch.The variable shape "
                             f"{self.shape}, and the assigned value shape {dtypes.TensorShape(arr.shape)} are "
                             "incompatible.")
        self._previous.append(weakref.ref(self._leaf))
        self._leaf = self._make_leaf(arr)
        return self if read_value else None

    def _update(self, engine_op: str, delta, read_value: bool):
        if context.state().tracing is not None:     # recorded as graph ops, on the value the graph has
            combine = ops.add if engine_op == "add" else ops.subtract
            return self.assign(combine(self._dagscope_value(), delta), read_value=read_value)
        if hasattr(delta, "_dagscope_value"):
            delta = delta._dagscope_value()
        delta = EagerTensor(infer_array(delta, self._dtype))
        with autograd.no_grad():              # a state update, not part of any gradient
            new = apply(engine_op, EagerTensor(self._leaf.array), delta)
        return self.assign(new.array, read_value=read_value)

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("add", delta, read_value)

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._update("sub", delta, read_value)

    # ---- Python protocol -----------------------------------------------------------------------------
    def __repr__(self) -> str:
        return (f"<tf.Variable {self.name!r} shape={self.shape} dtype={self._dtype.name}, "
                f"numpy={numpy_text(self._leaf.array, is_repr=True)}>")

    __str__ = __repr__

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self._leaf.array, dtype=dtype)

    def __float__(self):
        return float(self._leaf.array)

    def __int__(self):
        return int(self._leaf.array)

    def __bool__(self):
        return bool(as_eager(self._leaf))

    def __len__(self):
        return len(self._leaf)

    def __iter__(self):
        return iter(self._dagscope_value())

    def __getitem__(self, key):
        """`v[key]` reads the slice; eagerly, as in TF, the slice also has `assign(value)`, which writes
        it into the variable (`v[0, 0].assign(42)`, `v[:].assign(...)`: TF's strided-slice assign)."""
        out = self._dagscope_value()[key]
        if context.state().tracing is None and not isinstance(self, GraphVariable):
            out.assign = lambda value, use_locking=None, name=None, read_value=True: \
                self._assign_slice(key, value, read_value)
        return out

    def _assign_slice(self, key, value, read_value: bool):
        if hasattr(value, "_dagscope_value"):
            value = value._dagscope_value()
        if isinstance(key, tuple):
            key = tuple(int(k) if hasattr(k, "_dagscope_value") else k for k in key)
        new = np.array(self._leaf.array, copy=True)
        part = infer_array(value, self._dtype)
        if part.shape != new[key].shape:
            raise ValueError(f"Cannot assign a value of shape {dtypes.TensorShape(part.shape)} to the slice of "
                             f"shape {dtypes.TensorShape(new[key].shape)} of variable {self.name}")
        new[key] = part
        return self.assign(new, read_value=read_value)

    # `a == b` of eager variables compares their values elementwise, as TF2's tensors do (TF's
    # tensor_equals); a value that is no tensor (None, a name) is simply not equal. A variable stays
    # hashable by identity (TF asks for `v.ref()` there; Dagscope's internals key dicts by variable).
    def __eq__(self, other):
        if self is other:
            return True if not context.executing_eagerly() else ops.equal(self, other)
        if not context.executing_eagerly() or other is None or isinstance(other, (str, bytes)):
            return False
        try:
            return ops.equal(self, other)
        except (ValueError, TypeError, InvalidArgumentError):
            return False

    def __ne__(self, other):
        equal = self.__eq__(other)
        return not equal if isinstance(equal, builtins.bool) else ops.logical_not(equal)

    __hash__ = object.__hash__


class ResourceVariable(Variable):
    """What `tf.Variable(...)` makes in eager mode: TF2's class of that name (`type(v).__name__`)."""


# ---- tf.Variable in a TF1 graph ---------------------------------------------------------------------

TRAINABLE = "trainable_variables"
GLOBAL = "variables"


class GraphVariable(Variable):
    """`tf.Variable` while a TF1 graph is being built (what `tf.Variable(...)` returns then)."""

    def _create(self, initial_value, name, dtype, validate_shape: bool) -> None:
        """Called by Variable.__init__ (which reads tf.Variable's arguments) with trainable already set."""
        graph = default_graph()
        self.initial_value = ops.convert_to_tensor(initial_value, dtype=dtype)
        if not self.initial_value.shape.is_fully_defined():
            raise UnsupportedError("a tf.Variable needs a fully known shape in Dagscope")
        self._dtype = self.initial_value.dtype
        self._graph = graph
        self._value = graph.add("VariableV2", name or "Variable", [], {"variable": self}, None,
                                self._dtype, self.initial_value.shape)
        self._name = self._value.op.name
        self.initializer = self._assign_op(self.initial_value, "Assign")
        graph.collections.setdefault(GLOBAL, []).append(self)
        if self._trainable:
            graph.collections.setdefault(TRAINABLE, []).append(self)

    def _assign_op(self, value: GraphTensor, kind: str) -> GraphTensor:
        stack = context.state().graph_stack
        if stack and stack[-1] is not self._graph:
            raise UnsupportedError(f"{kind} of {self._name} inside tf.cond / tf.while_loop is not supported by "
                                   "Dagscope (branches and loop bodies must be pure functions of their inputs)")
        if value.dtype != self._dtype:
            raise TypeError(f"Input 'value' of '{kind}' Op has type {value.dtype.name} that does not match type "
                            f"{self._dtype.name} of argument 'ref'.")
        return self._graph.add(kind, f"{self._name}/{kind}", [value], {"assign_to": self},
                               lambda F, v, assign_to=None: v)

    # ---- reading and writing build graph ops ----
    def _dagscope_value(self):
        raise TypeError(f"the graph variable {self._name} has no value outside a Session: use sess.run({self._name})")

    def _dagscope_graph_value(self, graph) -> GraphTensor:
        return self._value

    def value(self) -> GraphTensor:
        return self._value

    read_value = value

    def assign(self, value, use_locking=None, name=None, read_value=True):
        return self._assign_op(ops.convert_to_tensor(value, dtype=self._dtype), "Assign")

    def assign_add(self, delta, use_locking=None, name=None, read_value=True):
        return self._assign_op(ops.add(self._value, delta), "AssignAdd")

    def assign_sub(self, delta, use_locking=None, name=None, read_value=True):
        return self._assign_op(ops.subtract(self._value, delta), "AssignSub")

    def eval(self, session=None, feed_dict=None):
        return self._value.eval(feed_dict=feed_dict, session=session)

    @property
    def op(self):
        return self._value.op

    @property
    def graph(self):
        return self._graph

    @property
    def shape(self) -> dtypes.TensorShape:
        return self._value.shape

    def numpy(self):
        raise AttributeError("a TF1 graph variable has no numpy(): its value lives in a Session (sess.run(v))")

    def __repr__(self) -> str:
        return f"<tf.Variable '{self.name}' shape={self.shape} dtype={self._dtype.name}_ref>"

    __str__ = __repr__
