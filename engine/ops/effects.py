"""Ops whose point is an effect outside the values: `print` (TensorFlow's tf.print inside a
tf.function), `debug_print` and `debug_callback` (jax.debug.print / jax.debug.callback inside a jax.jit). Its value is a token; it prints nothing itself. A facade that runs a graph op by op
(engine.capture.common.run_eager, as a tf.function call does) subscribes to engine.hooks.OP_APPLIED
and writes the inputs each time the node runs — every iteration of a loop, only the branch taken —
as TensorFlow's PrintV2 does. Evaluating the graph for the run record prints nothing."""
from __future__ import annotations

import numpy as np

from engine.ops.registry import NN, OpDef, Spec, register


def _print_forward(*inputs, template=(), sep=" ", end="\n", summarize=3, stream="stderr"):
    return np.asarray(True)


register(OpDef(
    "print", NN, _print_forward, lambda *specs, **attrs: Spec((), np.dtype(np.bool_)), None, "",
    "print the inputs (template: texts and input indices)", "no gradient: printing has no value to differentiate",
    differentiable=False, attrs=("template", "sep", "end", "summarize", "stream"), saves=(),
    extra={"impure": True}))      # the passes keep it where it is: not folded, merged or removed as unused


def _debug_print_forward(*inputs, fmt="", names=()):
    return np.asarray(True)


# jax.debug.print: `fmt` formatted with the inputs as str.format arguments, an int in `names` a
# positional one, a str a keyword (engine/compat/jax/debug.py writes it when the node runs).
register(OpDef(
    "debug_print", NN, _debug_print_forward, lambda *specs, **attrs: Spec((), np.dtype(np.bool_)), None, "",
    "print fmt formatted with the inputs", "no gradient: printing has no value to differentiate",
    differentiable=False, attrs=("fmt", "names"), saves=(), extra={"impure": True}))


def _debug_callback_forward(*inputs, callback=None):
    return np.asarray(True)


# jax.debug.callback: `callback(arrays)` is the facade's, which rebuilds the program's arguments (its
# static ones kept beside) and calls the program's function; engine/compat/jax/debug.py calls it when
# the node runs, as it writes a debug_print.
register(OpDef(
    "debug_callback", NN, _debug_callback_forward, lambda *specs, **attrs: Spec((), np.dtype(np.bool_)), None, "",
    "call a Python function on the inputs", "no gradient: a debug callback has no value to differentiate",
    differentiable=False, attrs=("callback",), saves=(), extra={"impure": True}))


def _py_function_forward(*inputs, function=None, index=0, shape=(), dtype="float32"):
    return np.asarray(function(list(inputs), index), dtype=np.dtype(dtype))


# TensorFlow's tf.py_function inside a tf.function: `function(arrays, index)` is the facade's, which
# calls the program's Python function once per run of the node (index 0; the node for result k > 0
# takes its k-th result) and never while the graph is traced. `shape` is nominal: the result's shape
# is known only when the function has run (TensorFlow's is unknown too).
register(OpDef(
    "py_function", NN, _py_function_forward, lambda *specs, shape=(), dtype="float32", **attrs: Spec(
        tuple(shape), np.dtype(dtype)), None, "",
    "the result of a Python function called on the inputs", "no gradient: a Python function is opaque to the graph",
    differentiable=False, attrs=("function", "index", "shape", "dtype"), saves=(), extra={"impure": True}))


# A loop over a Python iterable the graph receives as an input (TensorFlow's `for x in dataset:` in a
# tf.function, a ReduceDataset there): the input is a 0-d object array holding the iterable, an object
# with `iterate()`, which gives a cursor with `advance() -> bool` (False once it is exhausted) and
# `item(k) -> ndarray` (the current element's k-th component). `iterator_start` makes a fresh cursor each
# time the graph runs it; a while_loop's condition is `iterator_next` and its body reads `iterator_item`.
# While the graph is compiled the input is a stand-in (not an iterable): the ops then give stand-ins too.

def _held(x):
    return np.asarray(x, dtype=object)[()]


def _object(value) -> np.ndarray:
    out = np.empty((), dtype=object)
    out[()] = value
    return out


def _iterator_start_forward(iterable):
    held = _held(iterable)
    return _object(held.iterate() if hasattr(held, "iterate") else held)


def _iterator_next_forward(cursor):
    held = _held(cursor)
    return np.asarray(held.advance() if hasattr(held, "advance") else True)


def _iterator_item_forward(cursor, component=0, shape=(), dtype="float32"):
    held = _held(cursor)
    if not hasattr(held, "item"):
        return np.zeros(tuple(shape), np.dtype(dtype))
    value = np.asarray(held.item(component))
    if value.shape != tuple(shape) or value.dtype != np.dtype(dtype):
        raise ValueError(f"an element of {value.dtype.name}{list(value.shape)} reached a loop compiled for "
                         f"{np.dtype(dtype).name}{list(shape)}: Dagscope's graphs have fixed shapes, so every element "
                         "of the loop must have the first one's (batch with drop_remainder=True)")
    return value


_OBJECT = Spec((), np.dtype(object))
register(OpDef(
    "iterator_start", NN, _iterator_start_forward, lambda *specs: _OBJECT, None, "",
    "a fresh cursor over the iterable input", "no gradient: an iterator is not a number",
    differentiable=False, saves=(), extra={"impure": True}))
register(OpDef(
    "iterator_next", NN, _iterator_next_forward, lambda *specs: Spec((), np.dtype(np.bool_)), None, "",
    "advance the cursor: true while it has an element", "no gradient: an iterator is not a number",
    differentiable=False, saves=(), extra={"impure": True}))
register(OpDef(
    "iterator_item", NN, _iterator_item_forward, lambda *specs, component=0, shape=(), dtype="float32": Spec(
        tuple(shape), np.dtype(dtype)), None, "",
    "the cursor's current element's component", "no gradient: an element read from an iterator is data",
    differentiable=False, attrs=("component", "shape", "dtype"), saves=(), extra={"impure": True}))
