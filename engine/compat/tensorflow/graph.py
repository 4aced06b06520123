"""TF1 graphs: `tf.Graph`, its Operations and symbolic Tensors (`Tensor("Add:0", shape=(), dtype=int32)`).

A TF1 op here is a recipe, not a computation: its type and name as TensorFlow names them, its
input tensors, and a *lowering* — the same function of a builder `F` that runs the op eagerly in
TF2 mode — which `Session.run` replays onto Dagscope's IR (engine/ir) once the fed values fix
every shape. Placeholders may have unknown dims (`[None, 784]`), which the IR does not allow, so
lowering waits for the feed, as TensorFlow itself only specializes shapes at run time.

A tensor's static shape and dtype are known at definition time, from the same lowering run on a
scratch IR graph (unknown dims become distinct sentinel sizes, mapped back to None afterwards).

A GraphTensor's Python operators (`a + b`, `a[0]`) are the TF ops of ops.py and array_ops.py, a
layer above: operators.py installs them, as TensorFlow's math_ops does on its Tensor class.
"""
from __future__ import annotations

import contextlib
from typing import Callable

import numpy as np

from engine import record
from engine.compat.tensorflow import context, dtypes
from engine.ir.builder import IRBuilder
from engine.ir.graph import Graph as IRGraph

# Distinct large sizes standing in for unknown dims during static shape inference.
_SENTINELS = tuple(1_000_003 + 7919 * i for i in range(16))


class Operation:
    def __init__(self, graph: "Graph", tf_type: str, name: str, inputs: list, attrs: dict,
                 lower: Callable | None, value: np.ndarray | None = None):
        self.graph = graph
        self.type = tf_type
        self.name = name
        self.inputs = list(inputs)
        self.attrs = dict(attrs)
        self.lower = lower               # lower(F, *input_values, **attrs) -> value; None for sources
        self.value = value               # Const ops: the array
        self.line = record.user_line()
        self.outputs: list[GraphTensor] = []
        self.control_inputs: list[Operation] = []    # ops that run whenever this one runs (tf.group)

    def run(self, feed_dict=None, session=None) -> None:
        (session or context.get_default_session()).run(self, feed_dict)

    def __repr__(self) -> str:
        return f"<tf.Operation {self.name!r} type={self.type}>"


class GraphTensor:
    """A symbolic tensor: the output of an Operation. It has no value until a Session runs it."""
    __array_priority__ = 1000

    def __init__(self, op: Operation, dtype: dtypes.DType, shape: dtypes.TensorShape, value_index: int = 0):
        self.op = op
        self.value_index = value_index
        self._dtype = dtype
        self._shape = shape

    @property
    def dtype(self) -> dtypes.DType:
        return self._dtype

    @property
    def shape(self) -> dtypes.TensorShape:
        return self._shape

    @property
    def name(self) -> str:
        return f"{self.op.name}:{self.value_index}"

    @property
    def graph(self) -> "Graph":
        return self.op.graph

    @property
    def device(self) -> str:
        return ""

    def get_shape(self) -> dtypes.TensorShape:
        return self._shape

    def set_shape(self, shape) -> None:
        shape = dtypes.TensorShape(shape)
        if not self._shape.is_compatible_with(shape):
            raise ValueError(f"Tensor's shape {self._shape} is not compatible with supplied shape {shape}.")
        if shape.rank is not None:
            self._shape = dtypes.TensorShape(
                [a if a is not None else b for a, b in zip(shape.dims, self._shape.dims or shape.dims)])

    def eval(self, feed_dict=None, session=None):
        return (session or context.get_default_session()).run(self, feed_dict)

    def numpy(self):
        raise AttributeError("'Tensor' object has no attribute 'numpy': this is a symbolic graph tensor "
                             "(graph mode). Its value exists only when a Session runs it: sess.run(tensor).")

    def __array__(self, dtype=None, copy=None):
        raise NotImplementedError(f"Cannot convert a symbolic tf.Tensor ({self.name}) to a numpy array: it has no "
                                  "value until a Session runs it (sess.run(tensor) returns one).")

    def __bool__(self):
        raise TypeError("Using a `tf.Tensor` as a Python `bool` is not allowed in Graph execution. Use Eager "
                        "execution or decorate this function with @tf.function.")

    def __iter__(self):
        raise TypeError("Iterating over a symbolic `tf.Tensor` is not allowed in Graph execution.")

    def __len__(self):
        raise TypeError("len is not well defined for a symbolic Tensor. Please call `x.shape` rather than "
                        "`len(x)` for shape information.")

    def __repr__(self) -> str:
        return f"<tf.Tensor '{self.name}' shape={self._shape} dtype={self._dtype.name}>"

    def __str__(self) -> str:
        shape = f", shape={self._shape}" if self._shape.rank is not None else ""     # TF leaves an unknown one out
        return f'Tensor("{self.name}"{shape}, dtype={self._dtype.name})'

    # Identity equality, as TF1 graph tensors have: they are feed_dict keys.
    __hash__ = object.__hash__

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return self is not other


class Graph:
    """`tf.Graph`: the operations a TF1 program defined, in order, with TF's unique names."""

    def __init__(self):
        self._operations: list[Operation] = []
        self._name_counts: dict[str, int] = {}
        self.collections: dict[str, list] = {}

    def unique_name(self, base: str) -> str:
        n = self._name_counts.get(base, 0)
        self._name_counts[base] = n + 1
        return base if n == 0 else f"{base}_{n}"

    @contextlib.contextmanager
    def as_default(self):
        st = context.state()
        st.graph_stack.append(self)
        try:
            yield self
        finally:
            st.graph_stack.remove(self)

    def get_operations(self) -> list[Operation]:
        return list(self._operations)

    def get_operation_by_name(self, name: str) -> Operation:
        for op in self._operations:
            if op.name == name:
                return op
        raise KeyError(f"The name '{name}' refers to an Operation not in the graph.")

    def get_tensor_by_name(self, name: str) -> GraphTensor:
        op_name, _, index = name.partition(":")
        if not index:
            raise ValueError(f"The name '{name}' looks like an (invalid) Operation name, not a Tensor. "
                             "Tensor names must be of the form \"<op_name>:<output_index>\".")
        return self.get_operation_by_name(op_name).outputs[int(index)]

    def add(self, tf_type: str, name: str | None, inputs: list, attrs: dict, lower: Callable | None,
            dtype: dtypes.DType | None = None, shape: dtypes.TensorShape | None = None,
            value: np.ndarray | None = None) -> GraphTensor:
        """Add an op; its output's dtype and shape are inferred from `lower` unless given."""
        for t in inputs:
            if t.graph is not self:
                raise ValueError(f"Tensor {t.name} must be from the same graph as the op being added "
                                 "(tensors from another tf.Graph cannot be combined).")
        op = Operation(self, tf_type, self.unique_name(name or tf_type), inputs, attrs, lower, value)
        if dtype is None:
            dtype, shape = infer(lower, inputs, attrs)
        op.outputs = [GraphTensor(op, dtype, shape)]
        self._operations.append(op)
        return op.outputs[0]

    def add_multi(self, tf_type: str, name: str | None, inputs: list, attrs: dict, lower: Callable,
                  specs: list, name_is_unique: bool = False) -> list[GraphTensor]:
        """An op with several outputs (`lower` returns one value per output); specs: (dtype, shape)."""
        name = name if name_is_unique else self.unique_name(name or tf_type)
        op = Operation(self, tf_type, name, inputs, attrs, lower)
        op.outputs = [GraphTensor(op, dtype, shape, i) for i, (dtype, shape) in enumerate(specs)]
        self._operations.append(op)
        return op.outputs

    def add_no_op(self, name: str, control_inputs: list) -> Operation:
        """An op without outputs that runs `control_inputs` (what tf.group and initializers are)."""
        op = Operation(self, "NoOp", self.unique_name(name), [], {}, None)
        op.control_inputs = list(control_inputs)
        self._operations.append(op)
        return op

    def __repr__(self) -> str:
        return f"<tf.Graph with {len(self._operations)} operations>"


def infer(lower: Callable, inputs: list, attrs: dict) -> tuple[dtypes.DType, dtypes.TensorShape]:
    """Static dtype and shape of `lower(*inputs)`, from the registry's rules on a scratch IR graph.

    With every input shape known, a shape error is the user's, raised now as TF1 raises it at
    definition time. With unknown dims a sentinel may trip a rule that the real size would pass,
    so then the result's dims just stay unknown."""
    if all(t.shape.is_fully_defined() for t in inputs):
        try:
            out = _lower_on_scratch(lower, inputs, attrs, lambda d: d)
        except (RuntimeError, IndexError) as exc:
            raise ValueError(f"{exc}") from None
        return dtypes.as_dtype(out.dtype), dtypes.TensorShape(out.shape)
    sentinel = iter(_SENTINELS)
    try:
        out = _lower_on_scratch(lower, inputs, attrs, lambda d: next(sentinel) if d is None else d)
        shape = dtypes.TensorShape([None if d in _SENTINELS else d for d in out.shape])
    except (RuntimeError, IndexError, ValueError):
        try:
            out = _lower_on_scratch(lower, inputs, attrs, lambda d: 1 if d is None else d)
        except (RuntimeError, IndexError, ValueError):
            return inputs[0].dtype, dtypes.TensorShape(None)
        shape = dtypes.TensorShape([None] * len(out.shape))
    if any(t.shape.rank is None for t in inputs):
        shape = dtypes.TensorShape(None)
    return dtypes.as_dtype(out.dtype), shape


def _lower_on_scratch(lower: Callable, inputs: list, attrs: dict, dim: Callable):
    scratch = IRGraph("infer")
    values = [scratch.placeholder("x", [dim(d) for d in (t.shape.dims or [])], t.dtype.np) for t in inputs]
    return lower(IRBuilder(scratch), *values, **attrs)


def default_graph() -> Graph:
    """The graph TF1 ops are added to: the innermost `with g.as_default()`, else the run's own graph."""
    st = context.state()
    if st.graph_stack:
        return st.graph_stack[-1]
    if st.root_graph is None:
        st.root_graph = Graph()
    return st.root_graph


def get_default_graph() -> Graph:
    """`tf.compat.v1.get_default_graph`."""
    return default_graph()


def reset_default_graph() -> None:
    """`tf.compat.v1.reset_default_graph`: later ops go to a new, empty graph."""
    st = context.state()
    if st.graph_stack:
        raise AssertionError("Do not use tf.reset_default_graph() to clear nested graphs.")
    st.root_graph = None


def placeholder(dtype, shape=None, name=None) -> GraphTensor:
    """`tf.placeholder`: a graph input whose value each `Session.run` must feed (dims may be None)."""
    if not context.building_graph():
        raise RuntimeError("tf.placeholder() is not compatible with eager execution. (Call "
                           "tf.compat.v1.disable_eager_execution() first.)")
    dtype = dtypes.as_dtype(dtype)
    shape = dtypes.TensorShape(shape)
    return default_graph().add("Placeholder", name or "Placeholder", [], {}, None, dtype, shape)


def reaches(outputs: list, x: GraphTensor, for_gradients: bool = False) -> bool:
    """Whether computing `outputs` runs the op that makes `x` (a walk up the op inputs); with
    `for_gradients`, whether a gradient can flow from them to x (not through a tf.stop_gradient)."""
    seen, stack = set(), [t.op for t in outputs]
    while stack:
        op = stack.pop()
        if op is x.op:
            return True
        if for_gradients and op.type == "StopGradient":
            continue
        if id(op) not in seen:
            seen.add(id(op))
            stack.extend(i.op for i in op.inputs)
    return False
