"""Constant folding: a call whose inputs are all constants is computed now and becomes a constant;
a cond whose predicate is constant is replaced by the branch it would take."""
from __future__ import annotations

import numpy as np

from engine.ir.graph import CALL, COND, OUTPUT, PLACEHOLDER, Graph, Node, Value
from engine.ir.interpreter import truth
from engine.ops.registry import OPS
from engine.passes.base import PassResult, constant_of, is_pure, reason, rewrite_every_graph

# Folding a huge result would bloat the graph (and the run record) with a literal array; the
# runtime computes it just as well.
MAX_FOLDED_ELEMENTS = 1 << 16


def constant_folding(graph: Graph) -> PassResult:
    return rewrite_every_graph(graph, _fold)


def _fold(g: Graph, result: PassResult) -> None:
    for node in list(g.nodes):
        if node.kind == CALL and node.inputs and is_pure(node):
            arrays = [constant_of(v) for v in node.inputs]
            if any(a is None for a in arrays):
                continue
            if int(np.prod(node.out.shape)) > MAX_FOLDED_ELEMENTS:
                continue
            value = OPS[node.op].run(*arrays, **node.attrs)
            # the folded node keeps its id (same value, now known), so the diff shows it as changed
            value = np.array(value, dtype=node.out.dtype).reshape(node.out.shape)
            node.kind, node.value, node.inputs, node.op, node.attrs = "constant", value, [], None, {}
            result.note(node.id, reason("folded_constant"))
        elif node.kind == COND and constant_of(node.inputs[0]) is not None:
            taken = "then" if truth(constant_of(node.inputs[0])) else "else"
            results = _inline(g, node, node.subgraphs[taken], node.inputs[1:])
            result.note(node.id, reason("folded_predicate", branch=taken))
            if results:
                result.replace(node.id, results[0])
        elif node.kind == COND:
            _constants_into_branches(node, result)


def _constants_into_branches(node: Node, result: PassResult) -> None:
    """A constant operand becomes a constant inside each branch, so folding continues in there
    (DCE then drops the operand)."""
    for i, v in enumerate(node.inputs[1:]):
        value = constant_of(v)
        if value is None or value.size > MAX_FOLDED_ELEMENTS:
            continue
        moved = False
        for branch in node.subgraphs.values():
            holder = branch.placeholders[i]
            if not branch.users().get(holder.id):
                continue
            first = next(n for n in branch.nodes if n.kind != PLACEHOLDER)
            with branch.inserting_before(first):
                inside = branch.constant(value)
            branch.replace_uses(holder.out, inside)
            moved = True
        if moved:
            result.note(node.id, reason("folded_operand", value=v.id))


def _inline(g: Graph, node: Node, branch: Graph, operands: list[Value]) -> list[Value]:
    """Replace `node` by a copy of `branch`'s nodes (keeping their ids), its placeholders bound to
    `operands`; returns the values that now stand for the node's results."""
    mapping = {p.id: v for p, v in zip(branch.inputs, operands)}
    with g.inserting_before(node):
        for n in branch.nodes:
            if n.kind in (PLACEHOLDER, OUTPUT):
                continue
            n.inputs = [mapping.get(v.id, v) for v in n.inputs]
            g._add(n)
            for v in n.outputs:
                mapping[v.id] = v
    results = [mapping.get(res.id, res) for res in branch.outputs]
    for out, res in zip(node.outputs, results):
        g.replace_uses(out, res)
    g.remove(node)
    return results
