"""`tf.Session`: run a TF1 graph by lowering the part the fetches need to Dagscope's IR and executing it
with the IR's reference interpreter; each new lowering is recorded as a static graph ("session").

`run(fetches, feed_dict)` prunes the graph to what the fetches depend on (as TensorFlow does), turns
fed tensors into IR placeholders with the fed values' concrete shapes, lowers every other op with
its lowering (the same one eager mode runs), and caches the IR per (fetches, feed shapes), so a
training loop calling `sess.run` 10,000 times lowers and records its graph once. Its runs are the
recorded graph's calls (engine/record/calls.py: the first few and the last, with what was fed and
fetched), as a captured function's calls are.
"""
from __future__ import annotations

import numpy as np

from engine.capture import trail
from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow.context import get_default_session  # noqa: F401  (tf.compat.v1's name)
from engine.compat.tensorflow.errors import FailedPreconditionError, InvalidArgumentError
from engine.compat.tensorflow.graph import Graph, GraphTensor, Operation, default_graph, reaches
from engine.compat.tensorflow.graph_control_flow import check_lowerable, lower_control
from engine.compat.tensorflow.variables import GraphVariable
from engine.errors import UnsupportedError
from engine.ir import interpreter
from engine.ir.builder import IRBuilder
from engine.ir.graph import Graph as IRGraph
from engine.ir.verify import verify
from engine.record import calls
from engine.record.static import record_static
from engine.tensor import Tensor

MAX_RECORDED_SESSION_GRAPHS = 4


class _Lowered:
    """One lowering: the IR graph and where each of its inputs comes from."""

    def __init__(self, ir: IRGraph, providers: list, n_fetched: int, assigned: list):
        self.ir = ir
        self.providers = providers  # per IR input, in order: ("feed", tensor) | ("sample", op) | ("variable", var)
        self.n_fetched = n_fetched  # the first outputs answer the fetches
        self.assigned = assigned    # (variable, output index): new values of the assign ops that ran
        self.calls = None           # engine.record.calls.CallSite once the graph is recorded


class Session:
    def __init__(self, target: str = "", graph: Graph | None = None, config=None):
        self.graph = graph or default_graph()
        self._cache: dict = {}
        self._closed = False
        self._variables: dict = {}       # graph variable -> its current value (a session owns the state)

    # ---- context manager / default session ----
    def __enter__(self) -> "Session":
        _default_sessions().append(self)
        return self

    def __exit__(self, *exc) -> bool:
        stack = _default_sessions()
        if self in stack:
            stack.remove(self)
        self.close()
        return False

    def as_default(self):
        return _DefaultSession(self)

    def close(self) -> None:
        self._closed = True

    # ---- running ----
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        if self._closed:
            raise RuntimeError("Attempted to use a closed Session.")
        flat: list = []
        structure = self._flatten_fetches(fetches, flat)
        feeds = self._feeds(feed_dict or {})
        tensors = []
        for f in flat:
            tensors.extend([f] if isinstance(f, GraphTensor) else _effects(f))
        tensors = list({id(t): t for t in tensors}.values())
        title = ", ".join(f.name.split(":")[0] if isinstance(f, GraphTensor) else f.name for f in flat)
        values = self._execute(tensors, feeds, title) if tensors else []
        by_tensor = dict(zip(map(id, tensors), values))
        results = [None if isinstance(f, Operation) else by_tensor[id(f)] for f in flat]
        return _pack(structure, iter(results))

    def _flatten_fetches(self, fetches, flat: list):
        if isinstance(fetches, dict):
            return {k: self._flatten_fetches(v, flat) for k, v in fetches.items()}
        if isinstance(fetches, (list, tuple)):
            return type(fetches)(self._flatten_fetches(f, flat) for f in fetches) if not hasattr(fetches, "_fields") \
                else type(fetches)(*(self._flatten_fetches(f, flat) for f in fetches))
        flat.append(self._as_fetch(fetches))
        return None

    def _as_fetch(self, fetch):
        if isinstance(fetch, str):
            fetch = (self.graph.get_tensor_by_name(fetch) if ":" in fetch
                     else self.graph.get_operation_by_name(fetch))
        if isinstance(fetch, GraphVariable):
            fetch = fetch.value()
        if isinstance(fetch, (GraphTensor, Operation)):
            if fetch.graph is not self.graph:
                raise ValueError(f"Fetch argument {fetch!r} cannot be interpreted as a Tensor. (Tensor {fetch!r} "
                                 "is not an element of this graph.)")
            return fetch
        if hasattr(fetch, "array") or hasattr(fetch, "_dagscope_value"):
            raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch).__name__}: it is an eager "
                            "(TF2) tensor, which already holds its value. Session.run runs graph tensors: call "
                            "tf.compat.v1.disable_eager_execution() at the start of the program so that "
                            "tf.constant, tf.add ... build a graph.")
        raise TypeError(f"Fetch argument {fetch!r} has invalid type {type(fetch).__name__}, must be a string or "
                        f"Tensor. (Can not convert a {type(fetch).__name__} into a Tensor or Operation.)")

    def _feeds(self, feed_dict: dict) -> dict:
        feeds = {}
        for key, value in feed_dict.items():
            t = self.graph.get_tensor_by_name(key) if isinstance(key, str) else key
            if not isinstance(t, GraphTensor):
                raise TypeError(f"The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                                f"Python scalars, strings, lists, numpy ndarrays. (key {key!r} is not a graph tensor)")
            if hasattr(value, "_dagscope_value") or isinstance(value, GraphTensor):
                raise TypeError("The value of a feed cannot be a tf.Tensor object. Acceptable feed values include "
                                "Python scalars, strings, lists, numpy ndarrays, or TensorHandles.")
            arr = np.asarray(getattr(value, "array", value), dtype=t.dtype.np)
            if not t.shape.is_compatible_with(arr.shape):
                raise ValueError(f"Cannot feed value of shape {dtypes.TensorShape(arr.shape)} for Tensor "
                                 f"{t.name}, which has shape {dtypes.shape_text_v1(t.shape)}")
            feeds[t] = arr
        return feeds

    def _execute(self, tensors: list, feeds: dict, title: str) -> list:
        key = (tuple(id(t) for t in tensors),
               tuple(sorted((id(t), a.shape, a.dtype.str) for t, a in feeds.items())))
        lowered = self._cache.get(key)
        if lowered is None:
            lowered = lower(tensors, feeds)
            self._cache[key] = lowered
            fresh = True
        else:
            fresh = False
        provided = [self._provide(p, feeds) for p in lowered.providers]
        env = interpreter.evaluate(lowered.ir, provided)
        if fresh:
            self._record(lowered, env, title)
        outputs = [env[v.id] for v in lowered.ir.outputs]
        if calls.active(lowered.calls):
            _record_call(lowered, provided, outputs)
        for variable, index in lowered.assigned:
            self._variables[variable] = np.array(outputs[index], copy=True)
        return [_as_result(v) for v in outputs[:lowered.n_fetched]]

    def _provide(self, provider, feeds: dict) -> np.ndarray:
        kind, what = provider
        if kind == "feed":
            return feeds[what]
        if kind == "sample":
            return what.attrs["sample"](context.state().rng)
        if what not in self._variables:
            raise FailedPreconditionError(f"Attempting to use uninitialized value {what._name}\n\t [[{{{{node "
                                          f"{what._name}}}}}]]  (run tf.global_variables_initializer() first)")
        return self._variables[what]

    def _record(self, lowered: _Lowered, env: dict, title: str) -> None:
        st = context.state()
        st.recorded_session_graphs += 1
        if st.recorded_session_graphs > MAX_RECORDED_SESSION_GRAPHS:
            return
        entry = record_static(lowered.ir, "session", f"Session.run({title}) #{st.recorded_session_graphs}",
                              values=env, backward=False)
        lowered.calls = calls.site_for(entry, lowered, "session")


def _record_call(lowered: _Lowered, provided: list, outputs: list) -> None:
    """One sess.run as a call of its recorded graph: what was fed (copied: the program owns those
    arrays and may reuse them) and what was fetched. Variables and random draws are inputs too, but
    not the call's arguments; they are held for replaying a cond's or loop's decisions."""
    held = [Tensor(np.array(a, copy=True)) if kind == "feed" else Tensor(a)
            for (kind, _), a in zip(lowered.providers, provided)]
    fed = [t for (kind, _), t in zip(lowered.providers, held) if kind == "feed"]
    fetched = [Tensor(np.array(a, copy=True)) for a in outputs[:lowered.n_fetched]]
    lowered.calls.add(fed, fetched, replay=(lowered.ir, held) if trail.has_control_flow(lowered.ir) else None)


def _as_result(arr: np.ndarray):
    """What TF1's run returns: numpy arrays, and numpy scalars for 0-d results (print as `5`)."""
    arr = np.asarray(arr)
    return arr[()] if arr.ndim == 0 else np.array(arr, copy=True)


def _pack(structure, results):
    if structure is None:
        return next(results)
    if isinstance(structure, dict):
        return {k: _pack(v, results) for k, v in structure.items()}
    if hasattr(structure, "_fields"):
        return type(structure)(*(_pack(s, results) for s in structure))
    return type(structure)(_pack(s, results) for s in structure)


def _effects(op: Operation) -> list:
    """The tensors to compute so that fetching `op` runs it (and the ops it groups)."""
    out, stack, seen = [], [op], set()
    while stack:
        o = stack.pop()
        if id(o) not in seen:
            seen.add(id(o))
            out.extend(o.outputs)
            stack.extend(o.control_inputs)
    return out


def lower(tensors: list, feeds: dict) -> _Lowered:
    """The IR of what `tensors` need, with fed tensors as inputs (iterative: graphs may be deep)."""
    ir = IRGraph("session_run")
    values: dict[tuple, object] = {}          # (id(op), output index) -> IR value
    providers, assigns = [], []
    for t in feeds:
        if reaches(tensors, t):
            values[(id(t.op), t.value_index)] = ir.placeholder(t.op.name, feeds[t].shape, feeds[t].dtype)
            providers.append(("feed", t))
    outputs = _lower_into(ir, tensors, values, providers, assigns)
    n_fetched = len(outputs)
    slots = []
    for _, v in assigns:
        if v not in outputs:
            outputs.append(v)
        slots.append(outputs.index(v))
    ir.output(*outputs)
    verify(ir)
    return _Lowered(ir, providers, n_fetched, [(var, slot) for (var, _), slot in zip(assigns, slots)])


def _lower_into(ir: IRGraph, tensors: list, values: dict, providers: list | None = None,
                assigns: list | None = None) -> list:
    """Lower the ops `tensors` need into `ir` (`values` holds what is known already) and return their
    values. Inside a cond branch or loop body there are no providers: state and sampling are refused."""
    builder = IRBuilder(ir)
    for op in _topological(tensors, {key[0] for key in values}):
        ir.current_line = op.line
        inputs = [values[(id(i.op), i.value_index)] for i in op.inputs]
        if op.value is not None:
            outs = [ir.constant(op.value, name=op.name)]
        elif op.type == "Placeholder":
            t = op.outputs[0]
            raise InvalidArgumentError(
                f"You must feed a value for placeholder tensor '{op.name}' with dtype {t.dtype.name} and shape "
                f"{_shape_list(t.shape)}\n\t [[{{{{node {op.name}}}}}]]")
        elif "sample" in op.attrs or "variable" in op.attrs:
            if providers is None:
                raise UnsupportedError(f"{op.type} inside tf.cond / tf.while_loop is not supported by Dagscope")
            t = op.outputs[0]
            role = "param" if "variable" in op.attrs else "input"
            outs = [ir.placeholder(op.name, t.shape.as_list(), t.dtype.np, role=role)]
            providers.append(("variable", op.attrs["variable"]) if "variable" in op.attrs else ("sample", op))
        elif "control" in op.attrs:
            check_lowerable(op)
            outs = lower_control(ir, op, inputs, _lower_into)
        elif op.lower is None:
            outs = []                                      # a NoOp: it only groups other ops
        elif "multi" in op.attrs:
            outs = op.lower(ir, *inputs)
        else:
            outs = [op.lower(builder, *inputs, **op.attrs)]
        if "assign_to" in op.attrs:
            if assigns is None:
                raise UnsupportedError("assign inside tf.cond / tf.while_loop is not supported by Dagscope")
            assigns.append((op.attrs["assign_to"], outs[0]))
        for i, v in enumerate(outs):
            if v is not None and getattr(v, "name", None) is None:
                v.name = op.name
            values[(id(op), i)] = v
    return [values[(id(t.op), t.value_index)] for t in tensors]


def _topological(tensors: list, done: set) -> list[Operation]:
    """Ops the fetches depend on (stopping at fed tensors), inputs first."""
    order, seen = [], set(done)
    stack = [(t.op, False) for t in reversed(tensors)]
    while stack:
        op, expanded = stack.pop()
        if expanded:
            order.append(op)
            continue
        if id(op) in seen:
            continue
        seen.add(id(op))
        stack.append((op, True))
        stack.extend((i.op, False) for i in reversed(op.inputs) if id(i.op) not in seen)
    return order


def _shape_list(shape: dtypes.TensorShape) -> str:
    if shape.rank is None:
        return "<unknown>"
    return "[" + ",".join("?" if d is None else str(d) for d in shape.dims) + "]"


# ---- default sessions -------------------------------------------------------------------------------

def _default_sessions() -> list:
    return context.state().sessions


class _DefaultSession:
    def __init__(self, session: Session):
        self.session = session

    def __enter__(self) -> Session:
        _default_sessions().append(self.session)
        return self.session

    def __exit__(self, *exc) -> bool:
        _default_sessions().remove(self.session)
        return False


class InteractiveSession(Session):
    """A Session that installs itself as the default on construction (for `t.eval()`)."""

    def __init__(self, target: str = "", graph: Graph | None = None, config=None):
        super().__init__(target, graph, config)
        _default_sessions().append(self)

    def close(self) -> None:
        stack = _default_sessions()
        if self in stack:
            stack.remove(self)
        super().close()
