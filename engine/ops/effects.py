"""Ops whose point is an effect outside the values: `print` (TensorFlow's tf.print inside a
tf.function) and `debug_print` (jax.debug.print inside a jax.jit). Its value is a token; it prints nothing itself. A facade that runs a graph op by op
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
