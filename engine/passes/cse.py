"""Common-subexpression elimination: a call equal to an earlier one (same op, inputs, attributes)
reuses the earlier value; equal small constants are merged the same way."""
from __future__ import annotations

from engine.ir.graph import CALL, CONSTANT, Graph
from engine.passes.base import PassResult, is_pure, reason, rewrite_every_graph

MAX_CONSTANT_KEY_BYTES = 4096     # bigger constants are not compared byte by byte


def cse(graph: Graph) -> PassResult:
    return rewrite_every_graph(graph, _merge)


def _key(node):
    if node.kind == CALL and is_pure(node):
        return ("call", node.op, tuple(v.id for v in node.inputs), repr(sorted(node.attrs.items())))
    if node.kind == CONSTANT and node.value.nbytes <= MAX_CONSTANT_KEY_BYTES:
        return ("const", str(node.value.dtype), node.value.shape, node.value.tobytes())
    return None


def _merge(g: Graph, result: PassResult) -> None:
    seen = {}
    for node in list(g.nodes):
        key = _key(node)
        if key is None:
            continue
        if key in seen:
            first = seen[key]
            g.replace_uses(node.out, first.out)
            g.remove(node)
            result.note(node.id, reason("cse_same", first=first.id))
            result.replace(node.id, first.out)
        else:
            seen[key] = node
