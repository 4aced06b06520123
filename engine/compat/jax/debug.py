"""`jax.debug.print`: a value printed when the program computes it, not when JAX traces it. Outside a
trace it prints at once; inside a jax.jit it is a `debug_print` node (engine/ops/effects.py) that
prints each time the compiled function runs — jit_function.py runs such a graph op by op and writes
the node with `write` (a print inside JAX's compiled code is a host callback, as here an op whose
only effect is the text). The values are formatted as JAX formats them: as numpy arrays, with
Python's str.format.
"""
from __future__ import annotations

import sys

import numpy as np

from engine.compat.jax import tracing
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import to_array
from engine.tensor import apply


def print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:  # noqa: A001 - JAX's name
    arrays = [to_array(a) for a in args] + [to_array(v) for v in kwargs.values()]
    names = tuple(range(len(args))) + tuple(kwargs)
    if tracing.active() is not None:
        apply("debug_print", *arrays, fmt=str(fmt), names=names)
        return
    _write([a.array for a in arrays], str(fmt), names)


def write(op, inputs, attrs, out) -> None:
    """engine.hooks.OP_APPLIED observer while a jitted graph runs op by op: a debug_print node prints."""
    if op.name == "debug_print":
        _write([t.array for t in inputs], **attrs)


def graph_prints(graph) -> bool:
    """Whether running `graph` prints (a debug_print node in it or in a branch or loop body)."""
    return any(n.op == "debug_print" or any(graph_prints(g) for g in n.subgraphs.values()) for n in graph.nodes)


def _write(arrays: list, fmt: str, names: tuple) -> None:
    positional = [np.asarray(a) for a, n in zip(arrays, names) if isinstance(n, int)]
    keywords = {n: np.asarray(a) for a, n in zip(arrays, names) if isinstance(n, str)}
    sys.stdout.write(fmt.format(*positional, **keywords) + "\n")


__getattr__ = unsupported_names("jax.debug", globals())
