"""`tf.cond` / `tf.while_loop` in a TF1 graph: the special control-flow ops a static graph needs
(seed 000: "控制流 — 静态图需特殊算子支持").

Each branch, loop condition and loop body is built into its own `FuncGraph` by calling the Python
function once; tensors of the enclosing graph it uses become its inputs ("captures"). The op
added to the enclosing graph is one `cond` (or `while_loop`) node whose inputs are the predicate
(or the loop variables) and the captured tensors. Session.run lowers it to the IR's `cond` /
`while_loop` node with sub-graphs (`lower_control`).
"""
from __future__ import annotations

from engine.compat.tensorflow import context, dtypes
from engine.compat.tensorflow.graph import Graph, GraphTensor
from engine.compat.tensorflow.nest import flatten, pack_like
from engine.compat.tensorflow.ops import convert_to_tensor
from engine.errors import UnsupportedError


class FuncGraph(Graph):
    """A branch or loop function being built: enclosing tensors it reads become its placeholders."""

    def __init__(self, outer: Graph, prefix: str):
        super().__init__()
        self.outer = outer
        self.prefix = prefix
        self.inputs: list[GraphTensor] = []        # its placeholders: loop variables first, then captures
        self.captured: list[GraphTensor] = []      # the enclosing tensors behind the capture placeholders
        self._capture_of: dict[int, GraphTensor] = {}

    def unique_name(self, base: str) -> str:
        return self.outer.unique_name(f"{self.prefix}/{base}")

    def input(self, dtype: dtypes.DType, shape: dtypes.TensorShape, name: str) -> GraphTensor:
        t = Graph.add(self, "Placeholder", name, [], {"func_input": True}, None, dtype, shape)
        self.inputs.append(t)
        return t

    def capture(self, t: GraphTensor) -> GraphTensor:
        if id(t) not in self._capture_of:
            if t.graph is not self.outer:
                if not isinstance(self.outer, FuncGraph):
                    raise ValueError(f"Tensor {t.name} must be from the same graph as the op being added.")
                self.outer.capture(t)                 # through every enclosing function graph
            self._capture_of[id(t)] = self.input(t.dtype, t.shape, "capture")
            self.captured.append(t)
        return self._capture_of[id(t)]

    def add(self, tf_type, name, inputs, attrs, lower, dtype=None, shape=None, value=None) -> GraphTensor:
        inputs = [self.capture(t) if t.graph is not self else t for t in inputs]
        return super().add(tf_type, name, inputs, attrs, lower, dtype, shape, value)

    def add_multi(self, tf_type, name, inputs, attrs, lower, specs, name_is_unique=False) -> list:
        inputs = [self.capture(t) if t.graph is not self else t for t in inputs]
        return super().add_multi(tf_type, name, inputs, attrs, lower, specs, name_is_unique)


def _build(outer: Graph, prefix: str, fn, args: list):
    """Call `fn(*args-as-inputs)` inside a new FuncGraph; returns (graph, flat outputs, structure)."""
    fg = FuncGraph(outer, prefix)
    inputs = [fg.input(a.dtype, a.shape, f"loop_var_{i}") for i, a in enumerate(args)]
    with fg.as_default():
        result = fn(*inputs)
        flat = [convert_to_tensor(r) for r in flatten(result)]
    return fg, flat, result


def _merged_shape(a: dtypes.TensorShape, b: dtypes.TensorShape) -> dtypes.TensorShape:
    if a.rank is None or b.rank is None or a.rank != b.rank:
        return dtypes.TensorShape(None)
    return dtypes.TensorShape([x if x == y else None for x, y in zip(a.dims, b.dims)])


def graph_cond(pred, true_fn, false_fn, name=None):
    pred = convert_to_tensor(pred, dtype=dtypes.bool)
    outer = context.state().graph_stack[-1] if context.state().graph_stack else pred.graph
    prefix = outer.unique_name(name or "cond")
    then_g, then_out, structure = _build(outer, prefix + "/then", lambda: true_fn(), [])
    else_g, else_out, _ = _build(outer, prefix + "/else", lambda: false_fn(), [])
    if len(then_out) != len(else_out):
        raise ValueError(f"true_fn and false_fn must return the same number of values: {len(then_out)} and "
                         f"{len(else_out)}")
    for a, b in zip(then_out, else_out):
        if a.dtype != b.dtype:
            raise TypeError(f"true_fn returns {a.dtype.name} but false_fn returns {b.dtype.name}")
    operands = _union(then_g.captured, else_g.captured)
    outs = outer.add_multi("If", prefix, [pred] + operands,
                           {"control": "cond", "graphs": (then_g, else_g), "outs": (then_out, else_out)}, None,
                           [(a.dtype, _merged_shape(a.shape, b.shape)) for a, b in zip(then_out, else_out)],
                           name_is_unique=True)
    return pack_like(structure, outs) if isinstance(structure, (list, tuple, dict)) else outs[0]


def graph_while_loop(cond, body, loop_vars, name=None):
    flat = [convert_to_tensor(v) for v in flatten(loop_vars)]
    outer = context.state().graph_stack[-1] if context.state().graph_stack else flat[0].graph
    prefix = outer.unique_name(name or "while")

    def unpacked(fn):
        return lambda *vs: fn(*_as_args(pack_like(loop_vars, list(vs))))
    cond_g, cond_out, _ = _build(outer, prefix + "/cond", unpacked(cond), flat)
    body_g, body_out, _ = _build(outer, prefix + "/body", unpacked(body), flat)
    if len(cond_out) != 1 or cond_out[0].dtype != dtypes.bool:
        raise TypeError("the while_loop condition must return one boolean tensor")
    if len(body_out) != len(flat):
        raise ValueError(f"the while_loop body returns {len(body_out)} values for {len(flat)} loop variables")
    for i, (a, b) in enumerate(zip(flat, body_out)):
        if a.dtype != b.dtype or not a.shape.is_compatible_with(b.shape):
            raise ValueError(f"loop variable {i} enters as {a.dtype.name}{a.shape} and leaves the body as "
                             f"{b.dtype.name}{b.shape}; it must keep its shape and dtype")
    operands = _union(cond_g.captured, body_g.captured)
    outs = outer.add_multi("While", prefix, flat + operands,
                           {"control": "while", "graphs": (cond_g, body_g), "outs": (cond_out, body_out),
                            "n_vars": len(flat)}, None, [(a.dtype, a.shape) for a in flat], name_is_unique=True)
    return pack_like(loop_vars, outs) if isinstance(loop_vars, (list, tuple, dict)) else outs[0]


def _as_args(state) -> tuple:
    return tuple(state) if isinstance(state, (list, tuple)) else (state,)


def _union(*lists) -> list:
    seen, out = set(), []
    for lst in lists:
        for t in lst:
            if id(t) not in seen:
                seen.add(id(t))
                out.append(t)
    return out


# ---- lowering (called by Session) ---------------------------------------------------------------------

def lower_control(ir, op, inputs: list, lower_graph) -> list:
    """The IR `cond` / `while_loop` node for a TF control op. `lower_graph(sub_ir, tensors, values)`
    lowers the ops `tensors` need into `sub_ir`, given the IR values of its inputs."""
    first, second = op.attrs["graphs"]
    outs_a, outs_b = op.attrs["outs"]
    if op.attrs["control"] == "cond":
        pred, operands = inputs[0], inputs[1:]
        captured = op.inputs[1:]
        then_ir = _lower_func(ir, "then", first, [], captured, operands, outs_a, lower_graph)
        else_ir = _lower_func(ir, "else", second, [], captured, operands, outs_b, lower_graph)
        return ir.cond(pred, then_ir, else_ir, operands)
    n = op.attrs["n_vars"]
    init, operands = inputs[:n], inputs[n:]
    captured = op.inputs[n:]
    cond_ir = _lower_func(ir, "cond", first, init, captured, operands, outs_a, lower_graph)
    body_ir = _lower_func(ir, "body", second, init, captured, operands, outs_b, lower_graph, passthrough=True)
    return ir.while_loop(cond_ir, body_ir, list(init) + list(operands))[:n]


def _lower_func(ir, kind: str, fg: FuncGraph, loop_vars: list, captured: list, operands: list, outs: list,
                lower_graph, passthrough: bool = False):
    """One FuncGraph as an IR sub-graph: placeholders for the loop variables, then for every operand
    of the control op (this function's own captures map onto them; others stay unused)."""
    sub = ir.subgraph(kind)
    values = {}
    for t, v in zip(fg.inputs[:len(loop_vars)], loop_vars):
        values[(id(t.op), 0)] = sub.placeholder(t.op.name, v.shape, v.dtype)
    by_outer = {id(c): t for c, t in zip(fg.captured, fg.inputs[len(loop_vars):])}
    operand_placeholders = []
    for outer_t, v in zip(captured, operands):
        p = sub.placeholder(outer_t.op.name, v.shape, v.dtype)
        operand_placeholders.append(p)
        if id(outer_t) in by_outer:
            values[(id(by_outer[id(outer_t)].op), 0)] = p
    results = lower_graph(sub, outs, values)
    sub.output(results + (operand_placeholders if passthrough else []))
    return sub


def check_lowerable(op) -> None:
    """Branches and loop bodies are pure: state changes inside them are not supported."""
    for fg in op.attrs["graphs"]:
        for inner in fg.get_operations():
            if "assign_to" in inner.attrs or "sample" in inner.attrs or "variable" in inner.attrs:
                raise UnsupportedError(f"{inner.type} inside tf.cond / tf.while_loop is not supported by Dagscope "
                                       "(branches and loop bodies must be pure functions of their inputs)")
