"""Staging a JAX function out into the IR: `jax.jit`, `jax.make_jaxpr` and lax's control flow trace
the function with the engine's tracer (engine/capture/tracing.py: every op applied to a tensor of
the trace becomes a call node), as JAX traces with its tracers. What JAX adds:
- a Python read of a traced value (`if x > 0`, `float(x)`) is an error, not a frozen branch: JAX's
  TracerBoolConversionError / ConcretizationTypeError with JAX's words;
- a branch or loop body is traced into a closed sub-graph (`Trace(parent=...)`): values of the
  enclosing trace it reads become its inputs, as JAX closes over them, while the enclosing trace
  is paused (its graph gets one cond / while node, not the body's ops);
- traces nest: `active()` is the innermost one, and `print(x)` of a traced value shows JAX's
  `JitTracer(float32[3])`.
"""
from __future__ import annotations

import numpy as np

from engine.capture.tracing import Tracer
from engine.hooks import OP_APPLIED, VALUE_READ
from engine.compat.jax.jaxpr import JIT_CALLS
from engine.ir.graph import CALL, COND, CONSTANT, WHILE

_TRACES: list = []      # the traces running, innermost last
GRAD_LEVEL = [0]        # differentiations running (transforms.py counts them; arrays print as JAX's tracers)
FORWARD: list = []      # the jvps running, innermost last (forward.JVPTrace)


class ConcretizationTypeError(TypeError):
    """jax.errors.ConcretizationTypeError."""


class TracerBoolConversionError(ConcretizationTypeError):
    """jax.errors.TracerBoolConversionError."""


class NonConcreteBooleanIndexError(IndexError):
    """jax.errors.NonConcreteBooleanIndexError: x[mask] with a traced mask (its result's shape is unknown)."""


class TracerIntegerConversionError(TypeError):
    """jax.errors.TracerIntegerConversionError."""


def short_dtype(dtype) -> str:
    return np.dtype(dtype).name


class Trace(Tracer):
    """One function being staged out (a jit, a make_jaxpr, a branch of lax.cond ...)."""

    def __init__(self, name: str, why: str = "jit", parent: "Trace | None" = None):
        super().__init__(name)
        self.why = why                     # "jit", "make_jaxpr", "cond", "while_loop" (for messages)
        self.parent = parent
        self.captured: list = []           # the parent's tensors this sub-graph reads: its extra inputs
        self.shown_as: dict = {}           # value id -> (primitive, literal): what the jaxpr says it is
        self.nested_weak: dict = {}        # value id in a branch or loop body graph -> weakly typed
        # placeholder id -> the tensor from outside it reads (captured or closed over); kept apart from
        # `values`, where the tensor may later stand for another value (its array an op's result)
        self.reads: dict = {}

    def knows(self, tensor) -> bool:
        return id(tensor) in self.values or (self.parent is not None and self.parent.knows(tensor))

    def value_of(self, tensor):
        if id(tensor) not in self.values and self.parent is not None and \
                (self.parent.knows(tensor) or tensor._requires_grad):
            # a value of the enclosing trace, or one a jax.grad differentiates, read by a branch or
            # loop body: one more input of the sub-graph (its gradient flows in through it)
            v = self.graph.placeholder(f"captured_{len(self.captured)}", tensor.array.shape, tensor.array.dtype)
            self.bind(tensor, v)
            self.captured.append(tensor)
            self.reads[v.id] = tensor
            return v
        if id(tensor) not in self.values and tensor._requires_grad:
            # a value an enclosing jax.grad differentiates (a closure over it): an input, so the
            # gradient flows through this graph; such a trace is not reused (see jit_function.py)
            v = self.graph.placeholder(f"closed_over_{len(self.lifted)}", tensor.array.shape, tensor.array.dtype,
                                       role="param")
            self.bind(tensor, v)
            self.lifted.append(tensor)
            self.reads[v.id] = tensor
            return v
        return super().value_of(tensor)

    def on_value_read(self, tensor, kind: str) -> None:
        if id(tensor) not in self.values:
            return
        v = self.values[id(tensor)]
        if v.producer is not None and v.producer.kind == CONSTANT and self.why != "jit":
            return
        spec = f"{short_dtype(v.dtype)}[{','.join(str(s) for s in v.shape)}]"
        where = f"The error occurred while tracing the function {self.graph.name} for {self.why}."
        if kind == "bool":
            raise TracerBoolConversionError(
                f"Attempted boolean conversion of traced array with shape {spec}.\n{where} This concrete value "
                "was not available in Python because it depends on the value of the arguments.\nSee "
                "https://docs.jax.dev/en/latest/errors.html#jax.errors.TracerBoolConversionError")
        raise ConcretizationTypeError(
            f"Abstract tracer value encountered where concrete value is expected: traced array with shape "
            f"{spec}\n{where}\nThe problem arose with the `{_KIND_WORDS.get(kind, kind)}` function. If trying "
            "to convert the data type of a value, try using `x.astype(float)` or `jnp.array(x, float)` "
            "instead.\nSee https://docs.jax.dev/en/latest/errors.html#jax.errors.ConcretizationTypeError")

    # ---- entering and leaving: an inner trace pauses the one around it ---------------------------
    def __enter__(self):
        if _TRACES:
            _TRACES[-1]._pause()
        _TRACES.append(self)
        return super().__enter__()

    def __exit__(self, *exc):
        super().__exit__(*exc)
        _TRACES.pop()
        if _TRACES:
            _TRACES[-1]._resume()
        return False

    def _pause(self) -> None:
        OP_APPLIED.remove(self.observe)
        VALUE_READ.remove(self.on_value_read)

    def _resume(self) -> None:
        OP_APPLIED.append(self.observe)
        VALUE_READ.append(self.on_value_read)

    def paused(self):
        """`with trace.paused():` ops run now are not the trace's (a branch computed for its value)."""
        return _Paused(self)


_KIND_WORDS = {"item": "float", "tolist": "tolist", "numpy": "numpy.asarray"}


class _Paused:
    def __init__(self, trace: Trace):
        self.trace = trace

    def __enter__(self):
        self.trace._pause()

    def __exit__(self, *exc):
        self.trace._resume()
        return False


def note_call(trace: Trace, name: str, inputs: list, outputs: list, start: int) -> None:
    """The ops `trace` recorded since its graph had `start` nodes were one call of the jitted function
    `name` (inputs and outputs: IR values): its jaxpr prints them as JAX's `jit` equation."""
    nodes = [n.id for n in trace.graph.nodes[start:] if n.kind in (CALL, COND, WHILE)]
    trace.shown_as.setdefault(JIT_CALLS, []).append({"name": name, "inputs": inputs, "outputs": outputs,
                                                      "nodes": nodes})


def active() -> Trace | None:
    return _TRACES[-1] if _TRACES else None


def traced(tensor) -> bool:
    """Is `tensor` a value of a running trace (what JAX would hold as a tracer)?"""
    return any(id(tensor) in t.values for t in _TRACES)


def tracer_text(tensor, weak: bool) -> str | None:
    """How JAX prints a value inside a transformation (`print(x)` in a jitted function), or None."""
    if traced(tensor) or tensor.__dict__.get("_leaked"):
        return f"JitTracer({'~' if weak else ''}{short_dtype(tensor.array.dtype)}[{','.join(map(str, tensor.array.shape))}])"
    if GRAD_LEVEL[0] and tensor._requires_grad:
        spec = f"{_SHORT.get(tensor.array.dtype.name, tensor.array.dtype.name)}[{','.join(map(str, tensor.array.shape))}]"
        return f"GradTracer(primal={tensor.array}, typeof(tangent)={spec})"
    return None


_SHORT = {"float32": "f32", "float64": "f64", "float16": "f16", "complex64": "c64"}
