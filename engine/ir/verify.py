"""The verifier: SSA (one definition per id), definitions before uses, closed sub-graphs, and
every value's shape and dtype equal to what the registry's rules infer. Run after every pass."""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, COND, CONSTANT, OUTPUT, PLACEHOLDER, WHILE, Graph, Node, format_spec
from engine.ops.registry import OPS, Spec


class VerifyError(AssertionError):
    """The graph breaks an IR invariant; the message names the node and the rule."""


def _same(a: Spec, b: Spec) -> bool:
    return tuple(a.shape) == tuple(b.shape) and np.dtype(a.dtype) == np.dtype(b.dtype)


def _fail(graph: Graph, node: Node | None, msg: str):
    where = f"{graph.name}: {node.id}" if node is not None else graph.name
    raise VerifyError(f"{where}: {msg}")


def verify(graph: Graph, _seen_ids: set | None = None) -> None:
    seen_ids = set() if _seen_ids is None else _seen_ids
    defined: set[str] = set()
    placeholders_done = False
    for i, node in enumerate(graph.nodes):
        if node.kind == OUTPUT:
            if i != len(graph.nodes) - 1 or node is not graph.output_node:
                _fail(graph, node, "the output node must be the graph's last node")
        elif node.kind == PLACEHOLDER:
            if placeholders_done:
                _fail(graph, node, "placeholders must come before every other node")
        else:
            placeholders_done = True
        for v in node.inputs:
            if v.id not in defined:
                _fail(graph, node, f"uses {v.id} before (or without) its definition in this graph")
        for v in node.outputs:
            if v.id in seen_ids:
                _fail(graph, node, f"value {v.id} is defined twice (SSA)")
            if v.producer is not node:
                _fail(graph, node, f"value {v.id} does not point back at its producer")
            seen_ids.add(v.id)
            defined.add(v.id)
        if node.outputs and node.id != node.outputs[0].id:
            _fail(graph, node, "a node's id must be its first output's id")
        _check_node(graph, node, seen_ids)
    if graph.output_node is None:
        _fail(graph, None, "the graph has no output node")
    if [v.id for v in graph.output_node.inputs] != [v.id for v in graph.outputs]:
        _fail(graph, None, "graph.outputs disagrees with its output node")


def _check_node(graph: Graph, node: Node, seen_ids: set) -> None:
    if node.kind == CONSTANT:
        if node.value is None or not _same(node.out.spec, Spec(node.value.shape, node.value.dtype)):
            _fail(graph, node, "a constant's spec must match its value")
    elif node.kind == CALL:
        if node.op not in OPS:
            _fail(graph, node, f"unknown op {node.op!r}")
        try:
            want = OPS[node.op].infer(*(v.spec for v in node.inputs), **node.attrs)
        except Exception as exc:  # noqa: BLE001 - a rule rejecting its inputs is a verify failure
            _fail(graph, node, f"{node.op} rejects its inputs: {exc}")
        if not _same(want, node.out.spec):
            _fail(graph, node, f"{node.op} infers {format_spec(want)} but the value says {format_spec(node.out.spec)}")
    elif node.kind == COND:
        pred, operands = node.inputs[0], node.inputs[1:]
        if int(np.prod(pred.shape)) != 1:
            _fail(graph, node, "a cond predicate must have exactly one element")
        for name in ("then", "else"):
            sub = node.subgraphs[name]
            _check_signature(graph, node, sub, operands, name)
            verify(sub, seen_ids)
            _check_results(graph, node, sub, node.outputs, name)
    elif node.kind == WHILE:
        cond_g, body = node.subgraphs["cond"], node.subgraphs["body"]
        for name, sub in (("cond", cond_g), ("body", body)):
            _check_signature(graph, node, sub, node.inputs, name)
            verify(sub, seen_ids)
        if len(cond_g.outputs) != 1 or int(np.prod(cond_g.outputs[0].shape)) != 1:
            _fail(graph, node, "a while_loop condition must return one 1-element value")
        _check_results(graph, node, body, node.inputs, "body")
        _check_results(graph, node, body, node.outputs, "body")


def _check_signature(graph, node, sub: Graph, operands, name) -> None:
    params = sub.inputs
    if len(params) != len(operands) or not all(_same(p.spec, o.spec) for p, o in zip(params, operands)):
        _fail(graph, node, f"sub-graph {name!r} takes ({', '.join(format_spec(p.spec) for p in params)}) "
                           f"but gets ({', '.join(format_spec(o.spec) for o in operands)})")


def _check_results(graph, node, sub: Graph, values, name) -> None:
    if len(sub.outputs) != len(values) or not all(_same(a.spec, b.spec) for a, b in zip(sub.outputs, values)):
        _fail(graph, node, f"sub-graph {name!r} returns ({', '.join(format_spec(v.spec) for v in sub.outputs)}) "
                           f"but ({', '.join(format_spec(v.spec) for v in values)}) is expected")
