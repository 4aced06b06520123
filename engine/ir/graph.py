"""The static-graph IR: SSA values with a Spec (shape, dtype), nodes that define them, and graphs.

Builder API (what capture, TensorFlow graphs and tests write)::

    g = Graph("f")
    x = g.placeholder("x", (32, 128), np.float32)            # kind="param" for module weights
    w = g.constant(np.ones((128,), np.float32))              # data known at capture time
    y = g.call("mul", x, w)                                  # any op of engine.ops.OPS; shape inferred
    z = g.call("sum", y, dim=(1,), keepdim=False)            # attrs are keyword arguments
    s = g.call("mul", z, 2.0)                                # Python scalars become constants (weakly typed)
    g.output(s)                                              # one or more values

Control flow has closed sub-graphs (they see only their own placeholders, so every pass,
the interpreter and autodiff treat them uniformly)::

    then_g, else_g = g.subgraph("then"), g.subgraph("else")  # share the parent's id counter
    a = then_g.placeholder("y", y.shape, y.dtype); then_g.output(then_g.call("add", a, 1.0))
    b = else_g.placeholder("y", y.shape, y.dtype); else_g.output(b)
    (r,) = g.cond(pred, then_g, else_g, [y])                 # pred: a bool (or numeric) 1-element value
    outs = g.while_loop(cond_g, body_g, [i, acc])            # cond_g(carried) -> flag; body_g(carried) -> carried

Every value has a stable id ("%3"); a node's id is its first output's id ("%5"; a cond with two
outputs defines "%5" and "%5.1"), so ids survive passes and serve as run-record node ids.
Nodes carry `source_line` and `module` (the user's line and nn.Module path at capture time).
"""
from __future__ import annotations

from copy import deepcopy
from dataclasses import dataclass, field
from typing import Any, Iterable

import numpy as np

from engine.ir.kinds import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE  # noqa: F401  (graph.py's importers read them here)
from engine.ir.printer import format_constant, format_graph, format_spec
from engine.ops.builder import scalar_dtype
from engine.ops.registry import OPS, Spec



class Value:
    """One SSA value: defined once by `producer`, used by any number of nodes."""
    __slots__ = ("id", "spec", "producer", "name")

    def __init__(self, id: str, spec: Spec, producer: "Node | None" = None, name: str | None = None):
        self.id = id
        self.spec = spec
        self.producer = producer
        self.name = name

    # `.shape` and `.dtype` let registry rules (vjp, infer helpers) treat a Value like an array.
    @property
    def shape(self) -> tuple[int, ...]:
        return self.spec.shape

    @property
    def dtype(self) -> np.dtype:
        return self.spec.dtype

    @property
    def ndim(self) -> int:
        return len(self.spec.shape)

    def __repr__(self) -> str:
        return f"Value({self.id}: {format_spec(self.spec)})"


@dataclass(eq=False)
class Node:
    """One definition. `op` names the registry op for calls; `attrs` its keyword attributes."""
    id: str
    kind: str
    inputs: list[Value] = field(default_factory=list)
    outputs: list[Value] = field(default_factory=list)
    op: str | None = None
    attrs: dict[str, Any] = field(default_factory=dict)
    value: np.ndarray | None = None            # constants only
    role: str | None = None                    # placeholders: "input" | "param" | "grad" | "saved"
    subgraphs: dict[str, "Graph"] = field(default_factory=dict)   # cond: then/else; while: cond/body
    source_line: int | None = None
    module: str | None = None

    @property
    def out(self) -> Value:
        return self.outputs[0]

    def label(self) -> str:
        if self.kind == CALL:
            return self.op
        if self.kind == PLACEHOLDER:
            return self.out.name or self.id
        if self.kind == CONSTANT:
            return format_constant(self.value)
        return self.kind


class _Counter:
    """Shared by a graph and its sub-graphs so that every id in one capture is unique."""
    def __init__(self, start: int = 0):
        self.next = start

    def take(self) -> int:
        n = self.next
        self.next += 1
        return n


class Graph:
    def __init__(self, name: str = "graph", counter: _Counter | None = None):
        self.name = name
        self.nodes: list[Node] = []
        self.outputs: list[Value] = []
        self.output_node: Node | None = None
        self.fusion_groups: list = []          # engine.ir.schedule.FusionGroup, set by the fusion pass
        self.memory_plan = None                # engine.ir.schedule.MemoryPlan, set by memory_planning
        # Placeholder ids whose shape is nominal (a script compiled before any call knows no shapes);
        # the printer shows values computed from them as `f32[?]`.
        self.unknown_shapes: set[str] = set()
        self._counter = counter or _Counter()
        # Where new nodes go: None = append; otherwise insert before this node (used by passes).
        self._insert_before: Node | None = None
        # Capture-time context stamped on new nodes (source line / module path).
        self.current_line: int | None = None
        self.current_module: str | None = None

    # ---- construction --------------------------------------------------------------------------
    def subgraph(self, name: str) -> "Graph":
        return Graph(f"{self.name}.{name}", self._counter)

    def fresh_id(self) -> str:
        return f"%{self._counter.take()}"

    @property
    def placeholders(self) -> list[Node]:
        return [n for n in self.nodes if n.kind == PLACEHOLDER]

    @property
    def inputs(self) -> list[Value]:
        return [n.out for n in self.placeholders]

    def _add(self, node: Node) -> Node:
        if node.source_line is None:
            node.source_line = self.current_line
        if node.module is None:
            node.module = self.current_module
        if self._insert_before is not None and node.kind != PLACEHOLDER:
            self.nodes.insert(self.nodes.index(self._insert_before), node)
        elif node.kind == PLACEHOLDER:
            # placeholders stay first, in declaration order
            at = len(self.placeholders)
            self.nodes.insert(at, node)
        else:
            self.nodes.append(node)
        return node

    def _node(self, kind: str, specs: list[Spec], **fields) -> Node:
        nid = self.fresh_id()
        node = Node(nid, kind, **fields)
        node.outputs = [Value(nid if i == 0 else f"{nid}.{i}", s, node) for i, s in enumerate(specs)]
        return self._add(node)

    def placeholder(self, name: str, shape, dtype=np.float32, role: str = "input") -> Value:
        spec = Spec(tuple(int(s) for s in shape), np.dtype(dtype))
        node = self._node(PLACEHOLDER, [spec], role=role)
        node.out.name = name
        return node.out

    def constant(self, value, name: str | None = None, dtype=None) -> Value:
        arr = np.asarray(value, dtype=dtype)
        node = self._node(CONSTANT, [Spec(arr.shape, arr.dtype)], value=arr)
        node.out.name = name
        return node.out

    def as_value(self, x, others: tuple = ()) -> Value:
        """A Value for `x`: itself, or a constant for a Python scalar / array (scalars weakly typed)."""
        if isinstance(x, Value):
            return x
        if isinstance(x, (bool, int, float)):
            return self.constant(np.asarray(x, dtype=scalar_dtype(others, x)))
        arr = np.asarray(x)
        return self.constant(arr)

    def call(self, op: str, *inputs, **attrs) -> Value:
        """Apply registered op `op`; its output spec comes from the registry's `infer` rule."""
        opdef = OPS[op]
        values = [self.as_value(x, inputs) for x in inputs]
        spec = opdef.infer(*(v.spec for v in values), **attrs)
        spec = Spec(tuple(int(s) for s in spec.shape), np.dtype(spec.dtype))
        return self._node(CALL, [spec], op=op, inputs=values, attrs=dict(attrs)).out

    def cond(self, pred, then_graph: "Graph", else_graph: "Graph", operands: Iterable) -> list[Value]:
        """`then_graph(*operands)` if pred else `else_graph(*operands)`; both must return equal specs."""
        operands = [self.as_value(x) for x in operands]
        pred = self.as_value(pred)
        specs = [v.spec for v in then_graph.outputs]
        node = self._node(COND, specs, inputs=[pred] + operands,
                          subgraphs={"then": then_graph, "else": else_graph})
        return list(node.outputs)

    def while_loop(self, cond_graph: "Graph", body_graph: "Graph", init: Iterable) -> list[Value]:
        """Loop-carried values: while cond_graph(*carried): carried = body_graph(*carried)."""
        init = [self.as_value(x) for x in init]
        node = self._node(WHILE, [v.spec for v in init], inputs=init,
                          subgraphs={"cond": cond_graph, "body": body_graph})
        return list(node.outputs)

    def output(self, *values) -> None:
        if len(values) == 1 and isinstance(values[0], (list, tuple)):
            values = tuple(values[0])
        vals = [self.as_value(v) for v in values]
        if self.output_node is not None:
            self.nodes.remove(self.output_node)
        self.output_node = Node("output", OUTPUT, inputs=vals)
        self.nodes.append(self.output_node)
        self.outputs = vals

    # ---- queries ---------------------------------------------------------------------------------
    def values(self) -> dict[str, Value]:
        return {v.id: v for n in self.nodes for v in n.outputs}

    def node_by_id(self, nid: str) -> Node:
        for n in self.nodes:
            if n.id == nid:
                return n
        raise KeyError(nid)

    def users(self) -> dict[str, list[Node]]:
        """value id -> nodes that read it (the output node included)."""
        users: dict[str, list[Node]] = {}
        for n in self.nodes:
            for v in n.inputs:
                users.setdefault(v.id, []).append(n)
        return users

    def op_nodes(self) -> list[Node]:
        return [n for n in self.nodes if n.kind in (CALL, COND, WHILE)]

    # ---- rewriting (used by passes) -----------------------------------------------------------------
    def replace_uses(self, old: Value, new: Value) -> None:
        for n in self.nodes:
            n.inputs = [new if v is old else v for v in n.inputs]
        self.outputs = [new if v is old else v for v in self.outputs]

    def remove(self, node: Node) -> None:
        self.nodes.remove(node)

    class _InsertBefore:
        def __init__(self, graph, anchor):
            self.graph, self.anchor = graph, anchor

        def __enter__(self):
            self.prev, self.graph._insert_before = self.graph._insert_before, self.anchor

        def __exit__(self, *exc):
            self.graph._insert_before = self.prev

    def inserting_before(self, anchor: Node):
        """`with g.inserting_before(node): g.call(...)` puts new nodes ahead of `node`."""
        return Graph._InsertBefore(self, anchor)

    def copy(self) -> "Graph":
        """A deep structural copy with the same ids (constants' arrays are shared, never mutated)."""
        return _copy_graph(self, _Counter(self._counter.next), {})

    def __str__(self) -> str:
        return format_graph(self)

    def __repr__(self) -> str:
        return f"<Graph {self.name}: {len(self.nodes)} nodes>"


def _copy_graph(g: Graph, counter: _Counter, vmap: dict) -> Graph:
    new = Graph(g.name, counter)
    local: dict[str, Value] = {}
    for n in g.nodes:
        if n.kind == OUTPUT:
            continue
        m = Node(n.id, n.kind, inputs=[local[v.id] for v in n.inputs], op=n.op, attrs=dict(n.attrs),
                 value=n.value, role=n.role, source_line=n.source_line, module=n.module,
                 subgraphs={k: _copy_graph(s, counter, vmap) for k, s in n.subgraphs.items()})
        m.outputs = [Value(v.id, v.spec, m, v.name) for v in n.outputs]
        for v in m.outputs:
            local[v.id] = v
        new.nodes.append(m)
    if g.output_node is not None:
        new.output([local[v.id] for v in g.outputs])
    new.unknown_shapes = set(g.unknown_shapes)
    new.fusion_groups = deepcopy(g.fusion_groups)
    new.memory_plan = deepcopy(g.memory_plan)
    return new
