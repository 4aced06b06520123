"""`tf.function`, `tf.cond`, `tf.while_loop`: graph capture per input signature, as TF2 does it.

Calling a `tf.function` looks up its *signature* — each tensor argument's shape and dtype, each
Python argument's value, each variable argument's identity — in a cache. A miss traces the
function: its source is compiled by Dagscope's AST compiler (engine/capture/ast_compiler.py, the
one `torch.jit.script` uses), so Python `if`/`while` on tensors become `cond`/`while_loop` nodes,
as AutoGraph converts them. A new signature traces again and the run record says why
("retraced: tensor 'x' size mismatch at index 0. expected 2, actual 3": the words of
engine/capture/specialisation.py, the cache every per-signature capture keeps its graphs in). Each
trace is recorded as a static graph (capture "function") with its backward graph and the pass
pipeline.

Variables the function reads become graph inputs (role "param"), read afresh at every call, so
`v.assign(...)` between calls is seen, and a GradientTape around the call differentiates through
the graph to the variables: a call runs the captured graph op by op through the engine
(`engine.capture.common.run_eager`), so the tape records it as it records eager ops.

Explicit `tf.cond` / `tf.while_loop` are in control_flow.py.

Why this drives the compiler itself instead of wrapping `engine.capture.graph_function.GraphFunction`:
that class creates its Compiler inside `compile_graph`, so a facade cannot register the variables
a trace reads as graph inputs (they would be frozen as constants, and a call after `v.assign`
would silently return a stale result), nor reach the compiler for explicit `tf.cond` /
`tf.while_loop` and `tf.print`. The parts are shared: the AST compiler, `run_eager`, the record's `record_static`.
"""
from __future__ import annotations

import contextlib
import functools
import inspect
import re
import types

import numpy as np

from engine import autograd, record
from engine.capture import trail
from engine.capture.ast_compiler import Compiler, ScriptError, is_tensor, parse_function
from engine.capture.specialisation import (FIRST_CALL, OBJECT, TENSOR, Specialisations, describe, signature,
                                           trace_title)
from engine.compat.tensorflow import context, dtypes, graph_def
from engine.compat.tensorflow.array_ops import write_printed
from engine.compat.tensorflow.eager import EagerTensor, as_eager
from engine.compat.tensorflow.errors import InvalidArgumentError
from engine.compat.tensorflow.graph import GraphTensor
from engine.compat.tensorflow.nest import flatten, pack_like
from engine.compat.tensorflow.script_ops import runs_python
from engine.compat.tensorflow.trace_types import trace_type_of
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.compat.scope import sentence
from engine.errors import GraphLoopLimit, UnsupportedAttributeError, UnsupportedError
from engine.hooks import OP_APPLIED, Message, subscribed
from engine.ir import interpreter
from engine.ir.graph import CONSTANT
from engine.ir.graph import Graph as IRGraph
from engine.record import calls
from engine.record.static import record_static

MAX_RECORDED_TRACES = 4          # per function: later traces still run, and are counted
UNKNOWN_RANK = "unknown rank"    # a shape TensorFlow's relaxed trace leaves wholly unknown


class _Tracing:
    """What a tf.function trace in progress needs to find: its compiler and the variables it read."""

    def __init__(self, compiler: Compiler, graph: IRGraph):
        self.compiler = compiler
        self.graph = graph
        self.variables: list = []            # tf.Variables read, in order: the "param" inputs
        self.assigned: dict = {}             # id(variable) -> (variable, its new value): extra outputs too
        self.tf_ops: list = []               # (first IR id, end, op type, name) per TensorFlow op (graph_def.py)
        self.failing: list = []              # (IR value, error): ops whose kernel fails if a result needs them
        self.iterables: dict = {}            # id(dataset) -> (dataset, its input's shadow): loops over it
        self.created_variables = 0           # tf.Variables the trace made
        self.loops: list = []                # tensor loops being compiled that carry variables (enter/leave)
        self.unrolled = False                # a loop over a dataset was unrolled: keyed by the dataset itself
        self.shown_shapes: dict = {}         # input's value id -> its shape as TensorFlow's trace has it (None dims)

    def fails_if_used(self, tensor, error: Exception) -> None:
        """`tensor` was made by an op whose kernel would fail (a gather out of range): the trace raises
        `error` if a result depends on it, and drops it if none does (TensorFlow prunes unused ops)."""
        value = self.compiler.sym.get(id(tensor))
        if value is not None:
            self.failing.append((value, error))

    def prune_or_raise(self, graph: IRGraph) -> None:
        if not self.failing:
            return
        needed, stack = set(), [v.producer for v in graph.outputs if v.producer is not None]
        while stack:
            node = stack.pop()
            if node.id not in needed:
                needed.add(node.id)
                stack += [v.producer for v in node.inputs if v.producer is not None]
        for value, error in self.failing:
            if value.producer is not None and value.producer.id in needed:
                raise error
        failing = {v.producer.id for v, _ in self.failing if v.producer is not None}
        feeding = {v.producer.id for n in graph.nodes if n.id in failing for v in n.inputs if v.producer is not None}
        dead = [n for n in graph.nodes if n.id not in needed and (n.id in failing | feeding or any(
            v.producer is not None and v.producer.id in failing for v in n.inputs))]
        self.compiler.drop_unused(graph, dead)     # (only what nothing reads: an input stays)

    # ---- Symbolic.carry: variables a tensor loop's body assigns -------------------------------------------
    def value(self, variable):
        return self.variable_value(variable)

    def enter(self, carried: list) -> dict:
        frame = {"carried": {id(v) for v in carried}, "ctxs": [], "found": [],
                 "saved": {id(v): self.assigned.get(id(v)) for v in carried}}
        self.loops.append(frame)
        return frame

    def bind(self, carried: list, shadows: list) -> None:
        """The cond or body being compiled reads (and the body assigns) these variables' loop-carried values."""
        self.loops[-1]["ctxs"].append(self.compiler.ctx)
        for variable, shadow in zip(carried, shadows):
            self.assigned[id(variable)] = (variable, as_eager(shadow))

    def current(self, variable):
        return self.assigned[id(variable)][1]

    def leave(self, frame: dict) -> list:
        """The variables as they were before the loop; returns those the body assigned that it did not carry."""
        self.loops.remove(frame)
        for key, before in frame["saved"].items():
            if before is None:
                self.assigned.pop(key, None)
            else:
                self.assigned[key] = before
        return frame["found"]

    def finish(self, carried: list, results: list) -> None:
        """After the loop: each variable's value is the loop's result for it."""
        for variable, result in zip(carried, results):
            self.assign_variable(variable, as_eager(result))

    def variable_value(self, variable):
        """What reading `variable` gives inside the trace: the value assigned earlier in it, or the input."""
        if id(variable) in self.assigned:
            return self.assigned[id(variable)][1]
        self.read_variable(variable)
        return variable._leaf

    def assign_variable(self, variable, value) -> None:
        """`v.assign(value)` in the function: `value` becomes an output, assigned after every call. In a tensor
        loop's body the loop carries the variable's value, as TensorFlow's while loop carries its resource's
        updates (one it does not carry yet is noted: leave() names it, and the loop is compiled again)."""
        frame = self.loops[-1] if self.loops else None
        if frame is not None and any(self.compiler.ctx is c for c in frame["ctxs"]):
            if id(variable) not in frame["carried"] and all(variable is not v for v in frame["found"]):
                # not carried yet: noted (the loop is compiled again carrying it), and this pass goes on
                frame["found"].append(variable)
                frame["saved"].setdefault(id(variable), self.assigned.get(id(variable)))
        elif self.compiler.ctx.parent is not None:
            raise GraphLoopLimit("Variable.assign inside a branch or loop of a tf.function is not supported by "
                                   "Dagscope; assign after the cond/while")
        self.assigned[id(variable)] = (variable, value)

    def read_variable(self, variable) -> None:
        leaf = variable._leaf
        if id(leaf) in self.compiler.sym:
            return
        v = self.graph.placeholder(variable._name, leaf.array.shape, leaf.array.dtype, role="param")
        self.compiler.shadow(v, leaf)                 # the real value stands for the input while tracing
        self.compiler.home[v.id] = self.graph         # defined in the top graph, whatever branch reads it
        self.variables.append(variable)

    def is_symbolic(self, t) -> bool:
        return id(t) in self.compiler.sym

    def is_computed(self, t) -> bool:
        """Whether `t`'s value is known only when the graph runs (not a constant the trace made of a known one,
        such as a row of a constant tf.range an unrolled loop gives)."""
        v = self.compiler.sym.get(id(t))
        return v is not None and not (v.producer is not None and v.producer.kind == CONSTANT)

    def iterable_input(self, iterable, name: str, role: str = "param"):
        """The shadow of the graph input that receives `iterable` (a tf.data.Dataset) at every call: an
        argument's, or for one the function reads from outside, an input after the variables (as TensorFlow
        captures it); `variables` keeps it in input order."""
        if id(iterable) in self.iterables:
            return self.iterables[id(iterable)][1]
        v = self.graph.placeholder(name, (), object, role=role)
        v.producer.attrs["variant"] = True          # a DT_VARIANT input in the GraphDef, as TensorFlow's dataset is
        shadow = self.compiler.shadow(v)
        self.compiler.home[v.id] = self.graph
        self.iterables[id(iterable)] = (iterable, shadow)
        if role == "param":
            self.variables.append(iterable)
        return shadow

    def loop_source(self, iterable):
        """The compiler's `loop_source`: a loop over a tf.data.Dataset is one loop op over a graph input."""
        if not hasattr(iterable, "_loop_components"):
            return None
        handle = self.iterable_input(iterable, "dataset")
        with init_scope():             # (an element it may read for its shapes is not part of the graph)
            components, pack = iterable._loop_components()
        return handle, components, lambda shadows: pack([as_eager(t) for t in shadows]), self.unrolled_dataset

    def unrolled_dataset(self) -> None:
        """A loop over a dataset was unrolled (its body assigns a variable, which Dagscope's loops cannot carry):
        the graph holds this dataset's elements, so the trace serves this dataset only."""
        self.unrolled = True


def tracing() -> _Tracing | None:
    return context.state().tracing


@contextlib.contextmanager
def init_scope():
    """`tf.init_scope()`: inside a tf.function's trace, the block runs eagerly, once, while tracing (its ops
    are not part of the graph: TensorFlow lifts them out of the function-building graph); elsewhere it
    changes nothing."""
    st = context.state()
    trace = st.tracing
    if trace is None:
        yield
        return
    st.tracing = None
    try:
        with trace.compiler.paused():
            yield
    finally:
        st.tracing = trace


# ---- signatures -------------------------------------------------------------------------------

def _is_variable(a) -> bool:
    return hasattr(a, "_dagscope_leaves")


def _signature(names: list, args: list, datasets_by_spec: bool = True) -> tuple:
    """Tensors by shape and dtype, variables by identity, Python values by value
    (engine.capture.specialisation); a dataset by its element_spec, as TensorFlow's TraceType keys it
    (the graph loops over whichever dataset a call gives; traced as-is, a loop over it is unrolled, so
    the dataset itself is the key)."""
    if any(isinstance(a, GraphTensor) for a in args):
        raise UnsupportedError("calling a tf.function on a TF1 graph tensor is not supported by Dagscope")
    keyed = [(trace_type_of(a), a) for a in args]
    by_type = {i: (names[i], OBJECT, type(a).__name__, t) for i, (t, a) in enumerate(keyed) if t is not None}
    by_type.update({i: (names[i], OBJECT, "Dataset", repr(a.element_spec)) for i, a in enumerate(args)
                    if datasets_by_spec and hasattr(a, "_loop_components")})
    if not by_type:
        return signature(names, args, by_identity=_is_variable)
    key = signature(names, [None if i in by_type else a for i, a in enumerate(args)], by_identity=_is_variable)
    return tuple(by_type.get(i, part) for i, part in enumerate(key))


def _spec(signature: tuple, args: list) -> str:
    """The tensors and variables of a signature, as a trace's title shows them: `f32[2], a tf.Variable`."""
    return ", ".join(describe(part) if part[1] == TENSOR else "a tf.Variable"
                     for part, a in zip(signature, args) if part[1] == TENSOR or (part[1] == OBJECT and _is_variable(a)))


# ---- the types TensorFlow prints for a trace (pretty_printed_concrete_signatures, function_type) ----

def _spec_text(shape, dtype) -> str:
    return f"TensorSpec(shape={dtypes.TensorShape(shape)}, dtype={dtypes.as_dtype(dtype)!r}, name=None)"


def _type_text(value) -> str:
    """TensorFlow's TraceType of an argument or result, as it prints it."""
    if value is None:
        return "Literal[None]"
    if hasattr(value, "_dagscope_value"):                     # a tf.Variable
        value = value._dagscope_value()
    if is_tensor(value):
        return _spec_text(value.array.shape, value.array.dtype)
    if isinstance(value, TensorSpec):
        return repr(value)
    if isinstance(value, (list, tuple)):
        kind = "List" if isinstance(value, list) else "Tuple"
        return f"{kind}[{', '.join(_type_text(v) for v in value)}]"
    if isinstance(value, dict):
        return f"Dict[{', '.join(f'[{k!r}, {_type_text(v)}]' for k, v in value.items())}]"
    return f"Literal[{value!r}]"


def _outputs_text(structure, graph: IRGraph) -> str:
    """The results' types, from the structure the function returned and the graph's result specs."""
    specs = iter(graph.outputs)

    def text(value):
        if isinstance(value, (list, tuple)):
            kind = "List" if isinstance(value, list) else "Tuple"
            return f"{kind}[{', '.join(text(v) for v in value)}]"
        if isinstance(value, dict):
            return f"Dict[{', '.join(f'[{k!r}, {text(v)}]' for k, v in value.items())}]"
        if value is None:
            return "Literal[None]"
        spec = next(specs).spec
        return _spec_text(spec.shape, spec.dtype)
    return text(structure)


# ---- tf.function ----------------------------------------------------------------------------------

class TensorSpec:
    """`tf.TensorSpec`: the shape (dims may be None) and dtype an input_signature accepts."""

    def __init__(self, shape, dtype=None, name=None):
        self.shape = dtypes.TensorShape(shape)
        self.dtype = dtypes.as_dtype(dtype if dtype is not None else dtypes.float32)
        self.name = name

    def __repr__(self) -> str:
        return f"TensorSpec(shape={self.shape}, dtype={self.dtype!r}, name={self.name!r})"


def _apply_input_signature(name: str, params: list, specs: list, args: tuple, kwargs: dict) -> list:
    """The arguments as tensors of the signature's dtypes, or TF's TypeError: a tensor of another dtype
    or an incompatible shape cannot be bound (Python values and numpy arrays are converted)."""
    signature = ", ".join(f"{p.name}: {spec!r}" for p, spec in zip(params, specs))

    def refuse(why: str):
        return TypeError(f"Binding inputs to tf.function failed due to `{why}`. Received args: {tuple(args)!r} and "
                         f"kwargs: {kwargs!r} for signature: ({signature}).")
    try:
        bound = inspect.Signature(params[:len(specs)]).bind(*args, **kwargs)
    except TypeError as exc:
        raise refuse(str(exc)) from None
    out = []
    for p, spec in zip(params, specs):
        value = bound.arguments[p.name]
        if hasattr(value, "_dagscope_value"):
            value = value._dagscope_value()
        try:
            t = convert_to_tensor(value, dtype=None if is_tensor(value) else spec.dtype)
        except (TypeError, ValueError) as exc:
            raise refuse(str(exc)) from None
        if t.dtype != spec.dtype or not spec.shape.is_compatible_with(t.shape):
            raise refuse(f"Can not cast {TensorSpec(t.shape, t.dtype)!r} to {spec!r}")
        out.append(t)
    return out


def _symbolic_text(v) -> str:
    """A traced tensor as `print` shows it while tracing: `Tensor("x:0", shape=(2,), dtype=float32)`."""
    name = f"{v.name}:0" if v.name else v.id
    trace = tracing()
    if trace is not None and v.id in trace.graph.unknown_shapes:       # (TensorFlow leaves an unknown rank out)
        return f'Tensor("{name}", dtype={dtypes.as_dtype(v.dtype).name})'
    shape = trace.shown_shapes.get(v.id, v.shape) if trace is not None else v.shape
    if shape is UNKNOWN_RANK:
        return f'Tensor("{name}", dtype={dtypes.as_dtype(v.dtype).name})'
    return f'Tensor("{name}", shape={dtypes.TensorShape(shape)}, dtype={dtypes.as_dtype(v.dtype).name})'


def _variable_value(value):
    """A tf.Variable a loop carries is its value (AutoGraph's loop variables are tensors)."""
    return value._dagscope_value() if hasattr(value, "_dagscope_value") else value


def _write_print(op, inputs, attrs, out) -> None:
    """hooks.OP_APPLIED observer while a trace's graph runs: a `print` node (a tf.print) writes."""
    if op.name == "print":
        write_printed([t.array for t in inputs], **attrs)


class SymbolicTensor:
    """A tensor of a tf.function's graph that escaped it (the function assigned it to a global while it was
    traced): it stands for a value only the graph has, so it has no `numpy()`, and using it in another
    function is TensorFlow's TypeError."""

    def __init__(self, text: str):
        self._text = text

    def __repr__(self) -> str:
        return self._text

    def __array__(self, dtype=None, copy=None):
        raise TypeError(f"{self._text} is out of scope and cannot be used here. Use return values, explicit Python "
                        "locals or TensorFlow collections to access it.")


def _escaped_tensor(v) -> SymbolicTensor:
    name = f"{v.name}:0" if v.name else v.id
    return SymbolicTensor(f"<tf.Tensor '{name}' shape={dtypes.TensorShape(v.shape)} dtype={dtypes.as_dtype(v.dtype).name}>")


class FuncGraph(IRGraph):
    """A ConcreteFunction's `graph`: Dagscope's IR graph of the trace (print it to read it), not a TensorFlow
    FuncGraph: as_graph_def() describes it in TensorFlow's words (graph_def.py); TensorFlow's other
    methods on it (get_operations ...) say so by name."""

    def as_graph_def(self, from_version=None, add_shapes=False):
        return graph_def.as_graph_def(self, getattr(self, "_tf_ops", []))

    def __getattr__(self, name: str):
        if name.startswith("_"):
            raise AttributeError(name)
        raise UnsupportedAttributeError(
            f"ConcreteFunction.graph.{name} is not supported by Dagscope: a tf.function's graph here is Dagscope's "
            f"own IR (print(concrete.graph) shows its nodes), not a TensorFlow FuncGraph or GraphDef. "
            f"{sentence('tf.Graph.' + name)}")


def _input_value(a):
    """What the graph's input receives for an argument or a captured value: a variable's value, a dataset
    as a 0-d object array (the iterator ops' input, engine/ops/effects.py), or the tensor itself."""
    if hasattr(a, "_dagscope_value"):
        return a._dagscope_value()
    if hasattr(a, "_loop_components"):
        held = np.empty((), dtype=object)
        held[()] = a
        return EagerTensor(held)
    return a


class ConcreteFunction:
    """One trace: the captured graph for one input signature."""

    def __init__(self, graph: IRGraph, structure, arg_positions: list, variables: list, signature: tuple,
                 assigned: list):
        if type(graph) is IRGraph:
            graph.__class__ = FuncGraph        # the same object, with TF's names refused by name
        self.graph = graph
        self.structure = structure           # the Python structure of the outputs
        leaves = flatten(structure)
        self.n_leaves = len(leaves)
        self.none_at = {i for i, o in enumerate(leaves) if o is None}    # results that are None, not tensors
        self.arg_positions = arg_positions   # which arguments are the graph's first inputs
        self.variables = variables           # then these variables' current values
        self.signature = signature
        self.assigned = assigned             # variables whose new values are the very last outputs
        self.calls = None                    # engine.record.calls.CallSite once this trace is recorded
        self.parameters: list = []           # [(inspect.Parameter, its TraceType text)], set by Function._trace
        self.function_name = "function"      # the Python function's, set by Function._trace
        self.output_text = _outputs_text(structure, graph)

    def _inputs_text(self) -> list[str]:
        return [f"  {p.name} ({p.kind.name}): {text}" for p, text in self.parameters]

    def pretty_printed_signature(self, verbose=True) -> str:
        captures = [f"  {id(v)}: TensorSpec(shape=(), dtype=tf.{'variant' if hasattr(v, '_loop_components') else 'resource'}, "
                    "name=None)" for v in self.variables]
        return "\n".join(["Input Parameters:", *self._inputs_text(), "Output Type:", f"  {self.output_text}",
                          "Captures:", *(captures or ["  None"])])

    @property
    def function_type(self):
        return _FunctionType(self)

    @property
    def inference_fn(self):
        """TensorFlow's AtomicFunction of this trace: the graph called on its tensors alone, in order."""
        return AtomicFunction(self)

    def __str__(self) -> str:
        return f"ConcreteFunction {self.pretty_printed_signature()}"

    def __repr__(self) -> str:
        return f"<ConcreteFunction {self.function_type} at {id(self):#X}>"

    def inputs_for(self, args: list) -> list:
        return [_input_value(args[i]) for i in self.arg_positions] + [_input_value(v) for v in self.variables]

    def run(self, args: list):
        inputs = self.inputs_for(args)
        previous = autograd._GradMode.enabled
        autograd._GradMode.enabled = bool(context.state().tapes)   # a tape around the call records it
        try:
            # the call's arguments are the graph's first inputs; the variables it reads follow
            # (assigned values are extra outputs, not results); tf.print's nodes write as they run
            results = len(self.graph.outputs) - len(self.assigned)
            with subscribed(OP_APPLIED, _write_print):
                outputs = trail.run(self.calls, self.graph, inputs, inputs[:len(self.arg_positions)], results)
        finally:
            autograd._GradMode.enabled = previous
        if self.assigned:
            outputs, new_values = outputs[:-len(self.assigned)], outputs[-len(self.assigned):]
            for variable, value in zip(self.assigned, new_values):
                variable.assign(value)
        tensors = iter([as_eager(o) for o in outputs])
        return pack_like(self.structure, [None if i in self.none_at else next(tensors) for i in range(self.n_leaves)])

    def __call__(self, *args, **kwargs):
        values = self._bind(args, kwargs)
        for n, i in enumerate(self.arg_positions):
            if hasattr(values[i], "_loop_components"):        # a dataset: its graph input takes any
                continue
            tensor, spec = convert_to_tensor(values[i]), self.graph.inputs[n].spec
            if dtypes.as_dtype(tensor.dtype) != dtypes.as_dtype(spec.dtype):
                raise _wrong_dtype(self.function_name, n, dtypes.as_dtype(spec.dtype), tensor)
            if tuple(tensor.shape) != tuple(spec.shape):
                raise self._refusal(f"Can not cast {_type_text(tensor)} to {_spec_text(spec.shape, spec.dtype)}",
                                    args, kwargs)
            values[i] = tensor
        return self.run(values)

    def _bind(self, args: tuple, kwargs: dict) -> list:
        """The call's arguments in the traced function's order, by position or by name, as TensorFlow
        binds them: a Python value the trace was specialised on may be left out, or given as it was;
        refused with TensorFlow's two reasons (the structured signature's, then the flat one's)."""
        if not self.parameters:
            return list(args)
        traced = object()
        params = [p.replace(default=traced) if i not in self.arg_positions else p.replace(default=p.empty)
                  for i, (p, _) in enumerate(self.parameters)]
        try:
            bound = inspect.Signature(params).bind(*args, **kwargs)
        except (TypeError, ValueError) as e:     # (ValueError: a tensor after a traced Python value)
            flat = self._bind_flat(args, kwargs, traced)
            if flat is None:
                raise self._refusal(str(e), args, kwargs) from None
            return flat
        bound.apply_defaults()
        values = list(bound.arguments.values())
        for value, (p, text) in zip(values, self.parameters):
            if value is not traced and p.name in kwargs and not is_tensor(value) and _type_text(value) != text:
                raise self._refusal(f"Can not cast {value!r} to {text}", args, kwargs)
        return values

    def _bind_flat(self, args: tuple, kwargs: dict, traced) -> list | None:
        """TensorFlow's fallback: the tensors alone, in order, by position or by name (the tf.function guide
        calls evaluate_no_bias(x) on a trace of evaluate(model, x)); None if they do not bind either."""
        tensors = [p.replace(default=p.empty, kind=p.POSITIONAL_OR_KEYWORD)
                   for i, (p, _) in enumerate(self.parameters) if i in self.arg_positions]
        try:
            bound = inspect.Signature(tensors).bind(*args, **kwargs)
        except TypeError:
            return None
        values = [traced] * len(self.parameters)
        for i, value in zip(self.arg_positions, bound.arguments.values()):
            values[i] = value
        return values

    def _refusal(self, why: str, args: tuple, kwargs: dict) -> TypeError:
        tensors = [p for i, (p, _) in enumerate(self.parameters) if i in self.arg_positions]
        flat = f"{self.function_name}({', '.join(p.name for p in tensors)})"
        extra = sorted(set(kwargs) - {p.name for p in tensors})
        missing = [p.name for p in tensors[len(args):] if p.name not in kwargs]
        fallback = (f"missing required arguments: {', '.join(missing)}" if missing else
                    f"got unexpected keyword arguments: {', '.join(extra)}" if extra else why)
        return TypeError(f"Binding inputs to tf.function failed due to `{why}`. Received args: {args} and kwargs: "
                         f"{kwargs} for signature: {self.function_type}.\nFallback to flat signature also failed "
                         f"due to: {flat} {fallback}.")


class AtomicFunction:
    """`ConcreteFunction.inference_fn`: the traced graph called on the tensors it takes, no binding."""

    def __init__(self, concrete: ConcreteFunction):
        self._concrete = concrete

    def __call__(self, *tensors):
        positions = self._concrete.arg_positions
        if len(tensors) != len(positions):
            raise TypeError(f"{self._concrete.function_name}'s graph takes {len(positions)} tensors, got {len(tensors)}")
        args: list = [None] * (max(positions) + 1 if positions else 0)
        for i, t in zip(positions, tensors):
            args[i] = t
        return self._concrete.run(args)


class _FunctionType:
    """`ConcreteFunction.function_type`: `(a: TensorSpec(...)) -> TensorSpec(...)` as TensorFlow prints it."""

    def __init__(self, concrete: ConcreteFunction):
        self._concrete = concrete

    def __str__(self) -> str:
        parts, star = [], False
        for p, text in self._concrete.parameters:
            if p.kind == p.KEYWORD_ONLY and not star:
                parts.append("*")
                star = True
            parts.append(f"{p.name}: {text}")
        return f"({', '.join(parts)}) -> {self._concrete.output_text}"

    __repr__ = __str__


def _stand_in(spec: TensorSpec) -> EagerTensor:
    """A tensor of `spec`'s (fully known) shape and dtype, for tracing: zeros, or empty strings."""
    dtype = np.dtype(object) if spec.dtype == dtypes.string else spec.dtype.as_numpy_dtype
    return EagerTensor(np.full(tuple(spec.shape.dims), b"" if dtype == object else 0, dtype))


class PerShapeConcreteFunction:
    """`get_concrete_function(tf.TensorSpec(None, ...))`: callable with any tensor the specs accept
    (each new shape is a trace of the tf.function's own), and printed with the specs as TensorFlow
    prints them; the result's shape is printed unknown, as no one trace stands for all of them."""

    def __init__(self, function, args: list, specs: dict):
        self._function, self._args, self._specs = function, args, specs
        self.function_name = function.__name__
        self.parameters = [(p, repr(specs[i]) if i in specs else _type_text(a))
                           for i, (p, a) in enumerate(zip(function._params, args))]
        self.arg_positions = sorted(specs)
        self.variables: list = []
        # the results' dtypes from one trace, with unknown dimensions as 1 (an unknown rank as a scalar)
        probe = function._concrete([_stand_in(_known(specs[i])) if i in specs else a for i, a in enumerate(args)])
        self.output_text = re.sub(r"shape=\([^)]*\)", "shape=<unknown>", probe.output_text)

    function_type = ConcreteFunction.function_type
    pretty_printed_signature = ConcreteFunction.pretty_printed_signature
    _inputs_text = ConcreteFunction._inputs_text
    __str__ = ConcreteFunction.__str__
    __repr__ = ConcreteFunction.__repr__
    _bind = ConcreteFunction._bind
    _refusal = ConcreteFunction._refusal

    def __call__(self, *args, **kwargs):
        full = []
        for i, (given, traced) in enumerate(zip(self._bind(args, kwargs), self._args)):
            if i not in self._specs:
                full.append(traced)
                continue
            tensor, spec = convert_to_tensor(given), self._specs[i]
            if dtypes.as_dtype(tensor.dtype) != spec.dtype:
                raise _wrong_dtype(self.function_name, self.arg_positions.index(i), spec.dtype, tensor)
            if not spec.shape.is_compatible_with(tensor.shape):
                raise self._refusal(f"Can not cast {_type_text(tensor)} to {spec!r}", args, kwargs)
            full.append(tensor)
        return self._function._concrete(full).run(full)


def _wrong_dtype(function_name: str, index: int, expected, tensor) -> InvalidArgumentError:
    """A concrete function called with a tensor of another dtype than its trace's, in TensorFlow's words."""
    name = f"__inference_{function_name}"
    return InvalidArgumentError(f"cannot compute {name} as input #{index}(zero-based) was expected to be a "
                                f"{expected.kernel_word} tensor but is a {dtypes.as_dtype(tensor.dtype).kernel_word} "
                                f"tensor [Op:{name}]")


def _known(spec: TensorSpec) -> TensorSpec:
    return TensorSpec([1 if d is None else d for d in (spec.shape.dims or [])], spec.dtype)


DO_NOT_CONVERT = "_dagscope_do_not_convert"     # set by tf.autograph.experimental.do_not_convert


class Function:
    """What `@tf.function` returns."""

    def __init__(self, python_function, input_signature=None, autograph=True, jit_compile=None,
                 reduce_retracing=False, experimental_relax_shapes=None, name=None, **kwargs):
        self.python_function = python_function
        self.input_signature = input_signature
        self.__name__ = name or getattr(python_function, "__name__", "function")
        self.__doc__ = getattr(python_function, "__doc__", None)
        self._params = list(inspect.signature(python_function).parameters.values())
        self._cache = Specialisations()        # signature -> ConcreteFunction
        self._is_method = False                # reached through an object (its first argument is the object)
        self._datasets_by_spec = True          # False once a trace unrolled a loop over a dataset
        self._reduce_retracing = reduce_retracing or bool(experimental_relax_shapes)
        self._tf_traces: list = []             # (key without shapes, shapes): the traces TensorFlow would have made
        self._initialized: set = set()         # None, or for a method id(object): traced once already
        functools.update_wrapper(self, python_function, updated=())
        # AutoGraph needs the source (lambdas and library functions have none it can use); like
        # TensorFlow, such a function is then traced as-is: ops recorded, Python `if`s not converted.
        self._autograph_note = None
        # autograph=False, or @tf.autograph.experimental.do_not_convert: traced as-is, at the user's request
        self._convert = autograph and not getattr(python_function, DO_NOT_CONVERT, False)
        try:
            if self._convert:
                parse_function(python_function)
        except ScriptError as exc:
            self._convert = False
            self._autograph_note = (f"AutoGraph could not transform {self.__name__} ({exc}); it was traced as-is, "
                                    "so a Python `if` on a tensor inside it fails")

    def __get__(self, instance, owner):
        if instance is None:
            return self
        self._is_method = True
        return types.MethodType(self, instance)        # `self` is specialized like a Python value

    def _bind(self, args, kwargs) -> list:
        if self.input_signature is not None:
            return _apply_input_signature(self.__name__, self._params, list(self.input_signature), args, kwargs)
        bound = inspect.Signature(self._params).bind(*args, **kwargs)
        bound.apply_defaults()
        out = []
        for p in self._params:
            value = bound.arguments[p.name]
            if p.kind == p.VAR_POSITIONAL or p.kind == p.VAR_KEYWORD:
                raise UnsupportedError(f"tf.function {self.__name__}: *args/**kwargs parameters are not supported "
                                       "by Dagscope; name each argument")
            if isinstance(value, np.ndarray):          # TF treats numpy arrays as tensors, not Python values
                value = EagerTensor(np.array(value, copy=True))
            out.append(value)
        return out

    def __call__(self, *args, **kwargs):
        args = self._bind(args, kwargs)
        caller = tracing()
        if caller is None and context.state().functions_eagerly:      # tf.config.run_functions_eagerly(True)
            positional, keywords = self._split(args)
            return self.python_function(*positional, **keywords)
        if caller is not None:
            return self._inline(caller, args)
        return self._concrete(args).run(args)

    def _split(self, values: list) -> tuple[tuple, dict]:
        """The bound arguments (in parameter order) as a call's positional and keyword-only arguments."""
        keywords = {p.name: v for p, v in zip(self._params, values) if p.kind == p.KEYWORD_ONLY}
        return tuple(v for p, v in zip(self._params, values) if p.kind != p.KEYWORD_ONLY), keywords

    def _inline(self, caller: _Tracing, args: list):
        """Called while another tf.function traces: this function's body becomes part of the caller's
        graph. (TensorFlow traces it into a graph of its own and adds a call op for it; the values are
        the same, and its Python side effects, e.g. print, happen once, during the caller's trace.)"""
        positional, keywords = self._split(args)
        if not self._convert:
            return self.python_function(*positional, **keywords)
        return caller.compiler.call_function(self.python_function, positional, keywords)

    def get_concrete_function(self, *args, **kwargs) -> ConcreteFunction:
        """The trace for these arguments; a tf.TensorSpec stands for any tensor it accepts. A spec with
        every dimension known is traced now, on a stand-in tensor of its shape and dtype; one with an
        unknown dimension gives a concrete function that traces the shape of each call, as Dagscope's
        graphs have concrete shapes (TensorFlow would make one graph for all of them)."""
        args = self._bind(args, kwargs)
        specs = {i: a for i, a in enumerate(args) if isinstance(a, TensorSpec)}
        if not specs:
            return self._concrete(args)
        if all(spec.shape.is_fully_defined() for spec in specs.values()):
            return self._concrete([_stand_in(specs[i]) if i in specs else a for i, a in enumerate(args)])
        return PerShapeConcreteFunction(self, args, specs)

    def experimental_get_tracing_count(self) -> int:
        return len(self._cache)

    def pretty_printed_concrete_signatures(self, verbose=True) -> str:
        """Every trace's signature, in the order they were made, as TensorFlow prints them."""
        return "\n\n".join(c.pretty_printed_signature(verbose) for c in self._cache.entries.values())

    def _concrete(self, args: list) -> ConcreteFunction:
        names = [p.name for p in self._params]
        signature = _signature(names, args, datasets_by_spec=self._convert and self._datasets_by_spec)
        concrete = self._cache.lookup(signature)
        if concrete is not None:
            return concrete
        retrace = self._cache.reason(signature)
        self._cache.retraced(signature, retrace)
        label = f"tf.function {self.__name__}"
        warning = frequent = None
        if retrace is None:
            reason = FIRST_CALL
        else:
            reason = self._cache.note(retrace)
            warning, frequent = self._cache.warning(label, retrace), self._cache.frequent(label)
            if self.input_signature is not None:
                more = ("; TensorFlow would reuse one graph for the whole input_signature, but Dagscope's graphs "
                        "have concrete shapes, so it makes one per shape")
                reason, warning = (Message(m.key + "_signature", m + more, **m.params) for m in (reason, warning))
        # the body sees what a program's TraceType says stands for its object (placeholder_value)
        traced = [t.placeholder_value(None) if (t := trace_type_of(a)) is not None else a for a in args]
        shown = self._tensorflow_trace(signature)
        concrete = self._trace(traced, names, signature, shown)
        # variables may be made by the first trace only (of a method: the first for its object)
        owner = id(args[0]) if self._is_method and args else None
        first = owner not in self._initialized
        self._initialized.add(owner)
        if concrete.created_variables and first:
            # As TensorFlow does, a trace that made variables is traced again: the variables must not be made
            # anew (a function that makes one at every call cannot be a graph; one made once, when an
            # attribute is still None, can)
            concrete = self._trace(traced, names, signature, shown)
        if concrete.created_variables:
            raise ValueError("tf.function only supports singleton tf.Variables created on the first call. Make "
                             "sure the tf.Variable is only created once or created outside tf.function. See "
                             "https://www.tensorflow.org/guide/function#creating_tfvariables for more information.")
        if concrete.unrolled:        # (its graph holds this dataset's elements: no other dataset may reuse it)
            self._datasets_by_spec = False
            signature = _signature(names, args, datasets_by_spec=False)
        self._cache.add(signature, concrete)
        self._record(concrete, args, reason, [w for w in (warning, frequent) if w])
        return concrete

    def _tensorflow_trace(self, signature: tuple) -> list | None:
        """The shapes TensorFlow's trace for this call gives the tensor arguments (None: a dimension the
        input_signature or reduce_retracing leaves unknown), or None where TensorFlow would not trace: its
        one trace for an input_signature, or a relaxed one, serves this shape too (Dagscope traces anyway, its
        graphs having fixed shapes, but quietly: the trace's Python prints are TensorFlow's trace's only)."""
        parts = list(signature)
        key = tuple((p[0], TENSOR, p[3]) if p[1] == TENSOR else p for p in parts)
        shapes = [tuple(p[2]) if p[1] == TENSOR else None for p in parts]
        if self.input_signature is not None:
            specs = list(self.input_signature)
            shapes = [tuple(specs[i].shape.dims or ()) if i < len(specs) and s is not None else s
                      for i, s in enumerate(shapes)]

        def covers(general, shape) -> bool:           # (general UNKNOWN_RANK: any shape)
            return shape is None or general is UNKNOWN_RANK or (general is not None and len(general) == len(shape)
                                                                and all(g is None or g == d for g, d in zip(general, shape)))
        previous = [traced for k, traced in self._tf_traces if k == key]
        if any(all(covers(g, s) for g, s in zip(traced, shapes)) for traced in previous):
            return None
        if self._reduce_retracing and previous:
            # TensorFlow's most specific common supertype: a dimension that differs is unknown, a rank that
            # differs an unknown rank
            last = previous[-1]
            shapes = [None if s is None else UNKNOWN_RANK if last[i] is UNKNOWN_RANK or len(last[i]) != len(s)
                      else tuple(d if d == p else None for d, p in zip(s, last[i])) for i, s in enumerate(shapes)]
        self._tf_traces.append((key, shapes))
        return shapes

    def _trace(self, args: list, names: list, signature: tuple, shown: list | None = None) -> ConcreteFunction:
        graph = IRGraph(self.__name__)
        compiler = Compiler(graph)
        compiler.trace_time_print = True       # Python print runs while tracing only, as in TensorFlow
        compiler.quiet_prints = shown is None  # (only while TensorFlow would trace)
        compiler.python_state = True           # as are assignments to attributes (self.counter += 1)
        compiler.tensor_loops = True           # `for row in x` over a traced tensor is a while_loop, as AutoGraph's
        compiler.sorted_loop_variables = True  # (AutoGraph orders a loop's variables by name)
        compiler.tensor_type, compiler.int_dtype = EagerTensor, np.int32     # what TF code sees between ops
        compiler.unwrap = _variable_value
        compiler.symbolic_text = _symbolic_text
        trace = _Tracing(compiler, graph)
        compiler.loop_source = trace.loop_source
        compiler.carry = trace                 # a tensor loop carries the variables its body assigns
        values, positions = [], []
        for i, (name, a) in enumerate(zip(names, args)):
            if hasattr(a, "_dagscope_leaves"):
                values.append(a)
                trace.read_variable(a)
                positions.append(i)
                trace.variables.pop()          # an argument, not a captured variable
            elif is_tensor(a):
                v = graph.placeholder(name, a.array.shape, a.array.dtype)
                values.append(as_eager(compiler.shadow(v)))
                positions.append(i)
                if shown is not None and i < len(shown) and shown[i] is not None:
                    trace.shown_shapes[v.id] = shown[i]
            elif hasattr(a, "_loop_components") and self._convert:     # a dataset: an input, as TensorFlow's is
                trace.iterable_input(a, name, role="input")
                values.append(a)
                positions.append(i)
            else:
                values.append(a)
        st = context.state()
        saved, st.tracing = st.tracing, trace     # inside: tf.executing_eagerly() is False
        try:
            with compiler:
                if self._convert:
                    result = compiler.call_function(self.python_function, *self._split(values))
                else:
                    positional, keywords = self._split(values)
                    result = self.python_function(*positional, **keywords)    # as-is: its ops are still recorded
        finally:
            st.tracing = saved
            for place, key in compiler.escaped:           # a traced tensor left in a global: TF's leaked tensor
                value = place.get(key)
                if is_tensor(value) and id(value) in compiler.sym:
                    place[key] = _escaped_tensor(compiler.sym[id(value)])
        outputs = flatten(result)
        out_values = []
        for o in outputs:
            if o is None:                      # returned as None (also: no return statement), as in TensorFlow
                continue
            if hasattr(o, "_dagscope_value"):      # a variable returned: its value after the function's assigns
                o = trace.variable_value(o)
            if not is_tensor(o):
                if isinstance(o, (bool, int, float)):
                    o = EagerTensor(np.asarray(o, np.float32 if isinstance(o, float) else np.int32))
                else:
                    raise UnsupportedError(f"tf.function {self.__name__} returns a {type(o).__name__}; Dagscope's "
                                           "tf.function returns tensors (or lists, tuples and dicts of them)")
            out_values.append(compiler.value_of(o))
        out_values += [compiler.value_of(value) for _, value in trace.assigned.values()]
        graph.current_line = graph.current_module = None
        graph.output(out_values)
        trace.prune_or_raise(graph)
        graph._tf_ops = trace.tf_ops
        concrete = ConcreteFunction(graph, result, positions, list(trace.variables), signature,
                                    [variable for variable, _ in trace.assigned.values()])
        specs = list(self.input_signature or [])
        concrete.parameters = [(p, repr(specs[i]) if i < len(specs) else _type_text(a))
                               for i, (p, a) in enumerate(zip(self._params, args))]
        concrete.function_name = self.__name__
        concrete.created_variables = trace.created_variables
        concrete.unrolled = trace.unrolled
        return concrete

    def _record(self, concrete: ConcreteFunction, args: list, reason: str, run_warnings: list) -> None:
        """Record the trace just made (`reason`: its graph's own note; `run_warnings`: the run's)."""
        rec = record.current()
        warnings = [reason] + ([self._autograph_note] if self._autograph_note else [])
        for warning in run_warnings if rec is not None else ():
            rec.warn(warning)
        traces = len(self._cache)
        if rec is None or traces > MAX_RECORDED_TRACES:
            return
        # (a graph that calls Python is not evaluated for the record: that would call the program's function,
        # or pull a dataset's elements, a second time)
        arrays = [np.asarray(t.array) for t in concrete.inputs_for(args)]
        values = None if runs_python(concrete.graph) else interpreter.evaluate(concrete.graph, arrays)
        spec = _spec(concrete.signature, args)
        entry = record_static(concrete.graph, "function", trace_title(f"tf.function {self.__name__}", f"({spec})", traces),
                              warnings=warnings, values=values,
                              extra={"retrace_reason": reason, "function": self.__name__, "signature": f"({spec})",
                                     "tracing_count": traces})
        concrete.calls = calls.site_for(entry, self.python_function, "function")

    def __repr__(self) -> str:
        return f"<tensorflow.python.eager.polymorphic_function.polymorphic_function.Function object at {id(self):#x}>"


def function(func=None, input_signature=None, autograph=True, jit_compile=None, reduce_retracing=False,
             experimental_relax_shapes=None, **kwargs):
    """`@tf.function` and `tf.function(f, ...)`."""
    if func is None:
        return functools.partial(function, input_signature=input_signature, autograph=autograph,
                                 jit_compile=jit_compile, reduce_retracing=reduce_retracing, **kwargs)
    if isinstance(func, Function):
        return func
    return Function(func, input_signature=input_signature, autograph=autograph, jit_compile=jit_compile,
                    reduce_retracing=reduce_retracing, **kwargs)
