"""`tf.py_function`: a Python function called on tensors, eagerly or from inside a tf.function.

Eagerly it is the function called on the inputs, its results converted to `Tout`. Inside a
tf.function it is a `py_function` node (engine/ops/effects.py) that calls the function each time
the graph runs it — every call, every loop iteration, in the branch taken — and never while the
function is traced, as TensorFlow's EagerPyFunc op does. Its result's shape is known only once the
function has run (TensorFlow's is unknown too): the graph carries a nominal scalar shape, printed
as unknown. Not differentiated: a GradientTape sees no gradient through it (TensorFlow's records
the function's own eager ops).
"""
from __future__ import annotations

import functools

import numpy as np

from engine.compat.tensorflow import context, dtypes, graph_def
from engine.compat.tensorflow.eager import EagerTensor, as_eager
from engine.compat.tensorflow.graph import GraphTensor
from engine.compat.tensorflow.nest import flatten
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.errors import UnsupportedError
from engine.tensor import apply


def _results(value, touts: list) -> list:
    """The function's results as tensors of `touts` (TensorFlow's conversion: a Python value takes the dtype,
    a tensor of another dtype is an error)."""
    values = [] if not touts else [value] if len(touts) == 1 and not isinstance(value, (list, tuple)) else list(value)
    if len(values) != len(touts):
        raise ValueError(f"tf.py_function: the function returned {len(values)} values, Tout names {len(touts)}")
    out = []
    for v, t in zip(values, touts):
        tensor = convert_to_tensor(v, dtype=t)
        if tensor.dtype != t:
            raise TypeError(f"tf.py_function: the function returned a {tensor.dtype.name} tensor where Tout "
                            f"says {t.name}")
        out.append(tensor)
    return out


class _PyCall:
    """The node's `function`: runs the program's function once per run of the graph (the node for its first
    result calls it; the nodes for its other results take theirs from that call), never while tracing."""

    def __init__(self, func, touts: list):
        self.func, self.touts = func, touts
        self.last: list = []

    def __call__(self, arrays: list, index: int) -> np.ndarray:
        dtype = self.touts[index].np if self.touts else np.dtype(np.bool_)
        if context.state().tracing is not None:            # the trace's stand-in values: not a call
            return np.zeros((), dtype)
        if index == 0:
            self.last = [t.array for t in _results(self.func(*(EagerTensor(a) for a in arrays)), self.touts)]
        return self.last[index] if self.touts else np.asarray(True)


def py_function(func=None, inp=None, Tout=None, name=None):  # noqa: N803 - TensorFlow's argument name
    """`tf.py_function(func, inp, Tout)`, and `@tf.py_function(Tout=...)` as a decorator."""
    if func is None:
        def decorate(f):
            @functools.wraps(f)
            def call(*args):
                return py_function(f, list(args), Tout, name)
            return call
        return decorate
    if Tout is None:
        raise TypeError("Missing required argument: 'Tout'\n  If using tf.py_function as a decorator, set `Tout`\n"
                        "  **by name** above the function:\n  `@tf.py_function(Tout=tout)`")
    single = Tout is not None and not isinstance(Tout, (list, tuple))
    touts = [] if Tout is None else [dtypes.as_dtype(t) for t in ([Tout] if single else Tout)]
    inputs = [x._dagscope_value() if hasattr(x, "_dagscope_value") else x for x in flatten(list(inp or []))]
    if any(isinstance(x, GraphTensor) for x in inputs) or context.building_graph():
        raise UnsupportedError("tf.py_function in a TF1 graph is not supported by Dagscope; call the function on "
                               "the values sess.run gives")
    tensors = [convert_to_tensor(x) for x in inputs]
    tracing = context.state().tracing
    if tracing is None:
        results = _results(func(*tensors), touts)
    else:
        call, start = _PyCall(func, touts), tracing.graph._counter.next
        results = [as_eager(apply("py_function", *tensors, function=call, index=k, shape=(),
                                  dtype=t.np.name)) for k, t in enumerate(touts)]
        if not touts:
            apply("py_function", *tensors, function=call, index=0, shape=(), dtype="bool")
        for r in results:
            value = tracing.compiler.value_of(r)
            value.name = name or "EagerPyFunc"
            tracing.graph.unknown_shapes.add(value.id)
        graph_def.note_op(tracing, start, "EagerPyFunc", name or "EagerPyFunc")
    return results[0] if single else results


def call_in_graph(produce, shape, dtype, tf_type: str):
    """Inside a tf.function's trace: a node that calls `produce()` (a tensor of `shape` and `dtype`) each time
    the graph runs it, never while tracing — a draw from a tf.random.Generator, whose state moves on at
    every call as TensorFlow's stateful random ops move it."""
    tracing = context.state().tracing
    target = dtypes.as_dtype(dtype)
    call, start = _PyCall(produce, [target]), tracing.graph._counter.next
    out = as_eager(apply("py_function", function=call, index=0, shape=tuple(shape), dtype=target.np.name))
    graph_def.note_op(tracing, start, tf_type, tf_type)
    return out


def runs_python(graph) -> bool:
    """Whether the graph (or a branch or loop body in it) calls a Python function when it runs: a
    py_function's, or a dataset's as a loop pulls its elements."""
    return any(n.op in ("py_function", "iterator_start") or any(runs_python(g) for g in n.subgraphs.values())
               for n in graph.nodes)
