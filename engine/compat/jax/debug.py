"""`jax.debug.print`: a value printed when the program computes it, not when JAX traces it. Outside a
trace it prints at once; inside a jax.jit it is a `debug_print` node (engine/ops/effects.py) that
prints each time the compiled function runs — jit_function.py runs such a graph op by op and writes
the node with `write` (a print inside JAX's compiled code is a host callback, as here an op whose
only effect is the text). The values are formatted as JAX formats them: as numpy arrays, with
Python's str.format.

`jax.debug.callback(fn, *args, **kwargs)` is the same with the program's own function: fn is called
with the arguments rebuilt, each array leaf a jax.Array (other leaves, a string say, passed as they
are), at once outside a trace and each time a jitted graph's `debug_callback` node runs inside one.
`jax.debug.breakpoint` opens JAX's debugger, which waits for typed commands: a run has no terminal to
type them in, so it is refused by name.
"""
from __future__ import annotations

import contextlib
import sys

import numpy as np

from engine.compat.jax import tracing
from engine.compat.jax._surface import unsupported_names
from engine.compat.jax.array import Array, to_array
from engine.compat.jax.tree_util import tree_flatten, tree_unflatten
from engine.hooks import OP_APPLIED, subscribed
from engine.tensor import apply


def print(fmt: str, *args, ordered: bool = False, **kwargs) -> None:  # noqa: A001 - JAX's name
    arrays = [to_array(a) for a in args] + [to_array(v) for v in kwargs.values()]
    names = tuple(range(len(args))) + tuple(kwargs)
    if tracing.active() is not None:
        apply("debug_print", *arrays, fmt=str(fmt), names=names)
        return
    _write([a.array for a in arrays], str(fmt), names)


def callback(callback=None, *args, ordered: bool = False, partitioned: bool = False, **kwargs):
    """jax.debug.callback(fn, *args, **kwargs), or the two-call form jax.debug.callback(ordered=...)(fn, ...)."""
    if callback is not None:
        _callback(callback, *args, **kwargs)
        return None
    if args or kwargs:
        raise TypeError(f"debug_callback received unexpected arguments in the two-call form: {args=} {kwargs=}")
    return _callback


def _callback(fn, *args, **kwargs) -> None:
    if not callable(fn):
        raise TypeError(f"first argument to jax.debug.callback must be callable, but got an object of type {type(fn)}")
    leaves, tree = tree_flatten((args, kwargs))
    dynamic = [i for i, x in enumerate(leaves) if _is_array_like(x)]

    def flat(arrays: list) -> None:
        merged = list(leaves)
        for i, a in zip(dynamic, arrays):
            merged[i] = Array(np.array(a))         # a strong array of the value, as JAX hands it over
        c_args, c_kwargs = tree_unflatten(tree, merged)
        fn(*c_args, **c_kwargs)
    arrays = [to_array(leaves[i]) for i in dynamic]
    if tracing.active() is not None:
        apply("debug_callback", *arrays, callback=flat)
        return
    flat([a.array for a in arrays])


def _is_array_like(x) -> bool:
    """What JAX's shaped_abstractify accepts: arrays and Python or numpy numbers (not a string, not None)."""
    return isinstance(x, (Array, np.ndarray, np.generic, bool, int, float, complex)) or hasattr(x, "__jax_array__")


def breakpoint(*args, **kwargs):  # noqa: A001 - JAX's name
    raise NotImplementedError(
        "jax.debug.breakpoint is not supported by Dagscope: it stops the program at a debugger prompt that "
        "waits for typed commands, and a run has no terminal to type them in. Print the values you want to "
        "look at with jax.debug.print (or pass them to a function of yours with jax.debug.callback).")


def write(op, inputs, attrs, out) -> None:
    """engine.hooks.OP_APPLIED observer while a jitted graph runs op by op: a debug_print node prints,
    a debug_callback node calls the program's function."""
    if op.name == "debug_print":
        _write([t.array for t in inputs], **attrs)
    elif op.name == "debug_callback":
        attrs["callback"]([t.array for t in inputs])


def writing(graph):
    """A context in which running `graph` op by op (run now: no trace around it) writes its prints and
    calls its callbacks as their nodes run, unless something already writes them (a jit running it)."""
    if tracing.active() is None and write not in OP_APPLIED and graph_prints(graph):
        return subscribed(OP_APPLIED, write)
    return contextlib.nullcontext()


def graph_prints(graph) -> bool:
    """Whether running `graph` prints (a debug_print or debug_callback node in it or in a branch or loop body)."""
    return any(n.op in ("debug_print", "debug_callback") or any(graph_prints(g) for g in n.subgraphs.values())
               for n in graph.nodes)


def _write(arrays: list, fmt: str, names: tuple) -> None:
    positional = [np.asarray(a) for a, n in zip(arrays, names) if isinstance(n, int)]
    keywords = {n: np.asarray(a) for a, n in zip(arrays, names) if isinstance(n, str)}
    sys.stdout.write(fmt.format(*positional, **keywords) + "\n")


__getattr__ = unsupported_names("jax.debug", globals())
