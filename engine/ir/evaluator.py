"""One graph evaluator, parameterised by what it computes on (JAX's "transformations are
interpreters"): the walk over a Graph's nodes is written once, and an `Interpretation` says what a
placeholder, a constant, an op call and a condition's truth are for its kind of value.

- numpy arrays: `engine.ir.interpreter` (the reference interpreter, every backend's oracle; the
  recorder's values on nodes; generated code's control flow in `engine.codegen.straight_line`);
- Tensors: `engine.capture.common.run_eager` (a captured graph called by the program, op by op
  through autograd, so a tape or an outer trace sees its ops).

`cond` and `while_loop` are decided on the values (`truth`), their sub-graphs evaluated by the same
interpretation; `decided(node, taken=...)` / `decided(node, iterations=...)` hears each decision
of the graph's own (top-level) control flow, which is what a call's trail shows on the page.
"""
from __future__ import annotations

from typing import Callable

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Node
from engine.ops.builder import Builder

MAX_LOOP_ITERATIONS = 1_000_000     # a runaway while_loop fails instead of hanging a run


class Interpretation(Builder):
    """What the evaluator does on one kind of value: `apply(op, inputs, attrs)` (the Builder's, as
    vjp rules use it), and the three a graph needs beyond ops."""

    def input(self, node: Node, x):
        """A placeholder's value from what the caller passed."""
        raise NotImplementedError

    def constant(self, node: Node):
        raise NotImplementedError

    def truth(self, x) -> bool:
        """A condition's value as Python's bool (one element, else the error PyTorch gives)."""
        raise NotImplementedError


def bind(graph: Graph, inputs, on: Interpretation) -> dict:
    """Placeholder id -> value, from inputs in placeholder order."""
    inputs = list(inputs)
    holders = graph.placeholders
    if len(inputs) != len(holders):
        raise TypeError(f"{graph.name} takes {len(holders)} inputs but {len(inputs)} were given")
    return {n.id: on.input(n, x) for n, x in zip(holders, inputs)}


def walk(graph: Graph, env: dict, on: Interpretation, decided: Callable | None = None) -> dict:
    """Evaluate every node of `graph` into `env` (value id -> value; the placeholders already
    bound, see `bind`), and return it."""
    for node in graph.nodes:
        kind = node.kind
        if kind == CALL:
            env[node.id] = on.apply(node.op, [env[v.id] for v in node.inputs], node.attrs)
        elif kind == CONSTANT:
            env[node.id] = on.constant(node)
        elif kind == COND or kind == WHILE:
            results = control_flow(node, [env[v.id] for v in node.inputs], on, decided)
            for v, r in zip(node.outputs, results):
                env[v.id] = r
        elif kind not in (PLACEHOLDER, OUTPUT):
            raise ValueError(f"cannot evaluate a {kind!r} node ({node.id})")
    return env


def outputs(graph: Graph, inputs, on: Interpretation) -> list:
    """The graph's outputs for these inputs (placeholder order)."""
    env = walk(graph, bind(graph, inputs, on), on)
    return [env[v.id] for v in graph.outputs]


def control_flow(node: Node, inputs: list, on: Interpretation, decided: Callable | None = None) -> list:
    """A cond's or while_loop's results from its inputs (a cond's predicate first, then operands;
    a loop's initial state)."""
    if node.kind == COND:
        taken = "then" if on.truth(inputs[0]) else "else"
        results = outputs(node.subgraphs[taken], inputs[1:], on)
        if decided is not None:
            decided(node, taken=taken)
        return results
    cond, body = node.subgraphs["cond"], node.subgraphs["body"]
    carried = list(inputs)
    for iterations in range(MAX_LOOP_ITERATIONS + 1):
        if not on.truth(outputs(cond, carried, on)[0]):
            break
        if iterations == MAX_LOOP_ITERATIONS:
            raise RuntimeError(f"while_loop {node.id} ran more than {MAX_LOOP_ITERATIONS} iterations")
        carried = outputs(body, carried, on)
    if decided is not None:
        decided(node, iterations=iterations)
    return carried
