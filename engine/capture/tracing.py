"""Capture by tracing (`torch.jit.trace`): run the function once on example inputs and record every
op it executes. Python control flow is not recorded — only the path the example took — so when a
branch depends on a tensor's value the trace warns (as PyTorch's TracerWarning) and the captured
graph keeps that branch frozen for every later input."""
from __future__ import annotations

import sys
import warnings

import numpy as np

from engine import nn_context
from engine.capture import trail
from engine.capture.traced_module import TopLevelTracedModule
from engine.capture.common import (INPLACE_MESSAGE, ReadOnlyGuard, arguments, changed_state, frozen_random_masks,
                                   gather_inputs, is_module, is_parameter_like, is_readonly_error, module_state,
                                   pack_outputs, param_names, snapshot_state)
from engine.compat.torch_class_names import TorchClassRepr
from engine.errors import UnsupportedError
from engine.hooks import OP_APPLIED, VALUE_READ, Message
from engine.ir.graph import Graph, Value
from engine.ir.printer import format_graph
from engine.tensor import Tensor
from engine.user_code import USER_FILENAME, condition_text, user_line

_CONSTANT_NOTE = ("We can't record the data flow of Python values, so this value will be treated as a "
                  "constant in the future. This means that the trace might not generalize to other inputs!")
TRACER_MESSAGES = {
    "bool": "Converting a tensor to a Python boolean might cause the trace to be incorrect. " + _CONSTANT_NOTE,
    "item": "Converting a tensor to a Python number might cause the trace to be incorrect. " + _CONSTANT_NOTE,
    "tolist": "Converting a tensor to a Python list might cause the trace to be incorrect. " + _CONSTANT_NOTE,
    "numpy": "Converting a tensor to a NumPy array might cause the trace to be incorrect. " + _CONSTANT_NOTE,
}


class TracerWarning(UserWarning, metaclass=TorchClassRepr):
    """PyTorch's category for 'this trace may not generalize'."""


class Tracer:
    """An op observer that mirrors every eager op as a call node of `graph`."""

    def __init__(self, name: str):
        self.graph = Graph(name)
        self.values: dict[int, Value] = {}        # id(Tensor) -> its Value
        self.arrays: dict[str, np.ndarray] = {}   # value id -> the array it had (shown on the record's nodes)
        self.by_array: dict[int, tuple] = {}      # id(array) -> (array, Value): who holds which result
        self._alive: list = []                    # keeps traced tensors alive so ids are not reused
        self.warnings: list[str] = []
        self.frozen: list[dict] = []              # where Python read a tensor's value: the frozen branches
        self.frozen_arrays: list = []             # ... and the array it read there (checked on later calls)
        self.guard = ReadOnlyGuard()
        self.lifted: list = []                    # parameter-like tensors made inputs, by reference
        self.kinds: list = []                     # per placeholder: ("arg", i) | ("state", name) | ("lifted", t)

    def bind(self, tensor, value: Value) -> None:
        self.values[id(tensor)] = value
        self._alive.append(tensor)
        self.arrays[value.id] = tensor.array
        self.by_array[id(tensor.array)] = (tensor.array, value)
        self.guard.protect(tensor.array)

    def value_of(self, tensor) -> Value:
        v = self.values.get(id(tensor))
        if v is None or tensor.array is not self.arrays[v.id]:
            # an in-place op on a tensor that requires grad (apply + _become) left it holding the
            # op's result array: it now stands for that value
            known = self.by_array.get(id(tensor.array))
            if known is not None and known[0] is tensor.array:
                self.values[id(tensor)] = known[1]
                self._alive.append(tensor)
                return known[1]
            if v is not None:
                raise UnsupportedError(f"line {user_line()}: {INPLACE_MESSAGE}")
        if v is None and is_parameter_like(tensor):
            # a parameter read from outside (a global, a closure): an input, read at every call
            v = self.graph.placeholder(tensor._name or f"captured_{len(self.lifted)}", tensor.array.shape,
                                       tensor.array.dtype, role="param")
            self.bind(tensor, v)
            self.lifted.append(tensor)
        elif v is None:
            # A tensor the trace did not produce (a Python scalar, a tensor made inside): a constant.
            v = self.graph.constant(np.array(tensor.array, copy=True), name=tensor._name)
            self.bind(tensor, v)
        return v

    def observe(self, op, tensors, attrs, out) -> None:
        self.graph.current_line = user_line()
        self.graph.current_module = nn_context.current_module_path()
        v = self.graph.call(op.name, *(self.value_of(t) for t in tensors), **attrs)
        self.bind(out, v)

    def on_value_read(self, tensor, kind: str) -> None:
        if id(tensor) not in self.values:
            return                                # not computed from the trace's inputs
        line = user_line()
        message = TRACER_MESSAGES[kind]
        value = trail.plain(tensor.array)
        self.frozen.append({"line": line, "kind": kind, "value": value, "node": self.values[id(tensor)].id,
                            "code": condition_text(line)})
        self.frozen_arrays.append(np.array(tensor.array, copy=True))
        where = f"line {line}" if line is not None else "an unknown line"
        text = f"trace froze the branch at {where}: {message} (value seen: {value!r})"
        self.warnings.append(Message("warning.trace_froze", text, line=line, quote=message, value=repr(value)[:900])
                             if line is not None else Message("warning.trace_froze_unknown_line", text, quote=message,
                                                              value=repr(value)[:900]))
        recording = trail.recording()
        trail.warn(Message("warning.tracer", f"TracerWarning at line {line}: {message}", line=line, quote=message)
                   if line is not None else Message("warning.tracer_unknown_line", f"TracerWarning at line {line}: "
                                                    f"{message}", quote=message))
        if recording and line is not None:
            # inside a run the user sees it exactly as Python shows a warning, whatever the filters
            sys.stderr.write(warnings.formatwarning(message, TracerWarning, USER_FILENAME, line))
        elif line is not None:
            warnings.warn_explicit(message, TracerWarning, USER_FILENAME, line)
        else:
            warnings.warn(message, TracerWarning, stacklevel=3)

    def __enter__(self):
        OP_APPLIED.append(self.observe)
        VALUE_READ.append(self.on_value_read)
        trail.capture_started()
        return self

    def __exit__(self, *exc):
        OP_APPLIED.remove(self.observe)
        VALUE_READ.remove(self.on_value_read)
        trail.capture_ended()
        self.guard.release()
        return False


def _user_line_of(exc: BaseException) -> int | None:
    """The innermost line of the user's code in an exception's traceback."""
    line, tb = None, exc.__traceback__
    while tb is not None:
        if tb.tb_frame.f_code.co_filename == USER_FILENAME:
            line = tb.tb_lineno
        tb = tb.tb_next
    return line


def _as_tuple(example_inputs) -> tuple:
    if isinstance(example_inputs, Tensor):
        return (example_inputs,)
    return tuple(example_inputs)


def _structure(out) -> str:
    return "list" if isinstance(out, list) else "tuple" if isinstance(out, tuple) else "single"


def trace_graph(fn, example_inputs, name: str | None = None, module=None) -> tuple[Graph, Tracer, str, list]:
    """Trace `fn` (a function or a Module) once. Returns (graph, tracer, output structure, the
    module's state names). `tracer.kinds` says what each placeholder is: ("arg", i), ("state",
    dotted name) of the module, or ("lifted", tensor) for a parameter-like tensor the function
    read from outside (an input by reference; see engine.capture.common.gather_inputs)."""
    args = _as_tuple(example_inputs)
    if module is None and is_module(fn):
        module = fn
    target = fn.forward if is_module(fn) else fn
    name = name or (type(module).__name__ if module is not None else
                    getattr(target, "__qualname__", getattr(target, "__name__", "traced")))
    tracer = Tracer(name)
    g = tracer.graph
    arg_names = [n for n in param_names(target) if n != "self"]
    kinds = []
    for i, a in enumerate(args):
        if not isinstance(a, Tensor):
            raise TypeError(f"torch.jit.trace: example input {i} is a {type(a).__name__}; "
                            "tracing takes Tensors (Python values would be frozen into the graph)")
        label = arg_names[i] if i < len(arg_names) else f"input_{i}"
        tracer.bind(a, g.placeholder(label, a.array.shape, a.array.dtype))
        kinds.append(("arg", i))
    for pname, t in (module_state(module) if module is not None else []):
        tracer.bind(t, g.placeholder(pname, t.array.shape, t.array.dtype, role="param"))
        kinds.append(("state", pname))
    try:
        with tracer:
            out = fn(*args)
    except ValueError as exc:
        if not is_readonly_error(exc):
            raise
        raise UnsupportedError(f"line {_user_line_of(exc)}: {INPLACE_MESSAGE}") from None
    outs = list(out) if isinstance(out, (tuple, list)) else [out]
    for o in outs:
        if not isinstance(o, Tensor):
            raise TypeError(f"torch.jit.trace: the traced function returned a {type(o).__name__}; "
                            "only Tensors (or tuples of Tensors) can be traced outputs")
    g.current_line = g.current_module = None
    g.output([tracer.value_of(o) for o in outs])
    tracer.kinds = kinds + [("lifted", t) for t in tracer.lifted]
    return g, tracer, _structure(out), [ref for kind, ref in kinds if kind == "state"]


def trace_values(fn, values: list, name: str, module=None):
    """Trace `fn(*values)` where only the Tensor values become inputs (Python values are baked in).
    Returns (graph, tracer, structure, kinds) with kinds as trace_graph gives them."""
    positions = [i for i, v in enumerate(values) if _is_tensor(v)]

    def bound(*tensors):
        full = list(values)
        for i, t in zip(positions, tensors):
            full[i] = t
        return (module if module is not None else fn)(*full)
    graph, tracer, structure, _ = trace_graph(bound, [values[i] for i in positions], name=name, module=module)
    kinds = [("arg", positions[ref]) if kind == "arg" else (kind, ref) for kind, ref in tracer.kinds]
    return graph, tracer, structure, kinds


def _is_tensor(x) -> bool:
    return isinstance(x, Tensor)


class TracedFunction:
    """What `torch.jit.trace` returns: calling it replays the recorded graph (branches frozen)."""

    def __init__(self, fn, graph: Graph, structure: str, warnings_: list[str], kinds: list):
        self._fn = fn
        self._calls = None            # the call site the recorder gave for the graph (engine.capture.trail.run)
        self.graph = graph
        self._structure = structure
        self.warnings = warnings_
        self._kinds = kinds
        self.__name__ = getattr(fn, "__name__", type(fn).__name__)
        self.__doc__ = getattr(fn, "__doc__", None)

    @property
    def code(self) -> str:
        return format_graph(self.graph)

    def __call__(self, *args):
        n = sum(1 for kind, _ in self._kinds if kind == "arg")
        if len(args) != n:
            raise TypeError(f"{self.__name__}() expected {n} arguments but got {len(args)}")
        module = self._fn if is_module(self._fn) else None
        inputs = gather_inputs(self._kinds, args, module)
        outs = trail.run(self._calls, self.graph, inputs, arguments(self._kinds, inputs))
        return pack_outputs(outs, self._structure)

    forward = __call__

    def save(self, path) -> None:
        """Writes the captured IR as text (Dagscope's stand-in for TorchScript's archive)."""
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.code)

    def __getattr__(self, name):
        # parameters/submodules of a traced module stay reachable (traced.fc1.weight, .parameters())
        fn = self.__dict__.get("_fn")
        if fn is None or not is_module(fn):
            raise AttributeError(name)
        return getattr(fn, name)

    def __repr__(self) -> str:
        return f"<traced {self.__name__}>\n{self.code}"


def trace(fn, example_inputs, *args, **kwargs):
    """`torch.jit.trace(fn_or_module, example_inputs)`: a TracedFunction, or for a module a TracedModule
    (an nn.Module and a torch.jit.ScriptModule, as PyTorch's)."""
    before = snapshot_state(fn if is_module(fn) else None)
    graph, tracer, structure, _ = trace_graph(fn, example_inputs)
    kinds = tracer.kinds
    mutated = changed_state(fn if is_module(fn) else None, before, restore=False)
    if mutated:
        tracer.warnings.append(Message(
            "warning.trace_mutated_state", f"{', '.join(mutated)} changed in place during the trace (e.g. BatchNorm "
            "running statistics in training mode); calls of the traced module will not update them",
            names=", ".join(str(name) for name in mutated)))
    for msg in frozen_random_masks(graph):
        tracer.warnings.append(msg)
        trail.warn(Message("warning.jit_trace_note", f"torch.jit.trace: {msg}", note=msg))
    traced = TracedFunction(fn, graph, structure, tracer.warnings, kinds)
    traced._calls = trail.graph_captured(graph, "trace", Message("title.traced", f"traced {traced.__name__}",
                                                                  name=traced.__name__), target=fn,
                                         warnings=tracer.warnings, values=tracer.arrays,
                                         extra={"frozen": tracer.frozen, "function": traced.__name__},
                                         frozen=list(zip(tracer.frozen, tracer.frozen_arrays)))
    if is_module(fn):
        return TopLevelTracedModule(fn, traced)
    return traced
