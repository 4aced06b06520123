"""Dead-code elimination: nodes whose values nobody reads are removed (inputs always stay)."""
from __future__ import annotations

from engine.ir.graph import OUTPUT, PLACEHOLDER, Graph
from engine.passes.base import PassResult, all_graphs, is_pure


def dce(graph: Graph) -> PassResult:
    g = graph.copy()
    result = PassResult(g, False)
    for sub in list(all_graphs(g)):
        _sweep(sub, result)
    return result


def _sweep(g: Graph, result: PassResult) -> None:
    used: set[str] = set()
    for node in reversed(list(g.nodes)):
        if node.kind in (OUTPUT, PLACEHOLDER):
            used.update(v.id for v in node.inputs)
            continue
        if not any(v.id in used for v in node.outputs) and (node.op is None or is_pure(node)):
            g.remove(node)
            result.note(node.id, "DCE: no users")
            continue
        used.update(v.id for v in node.inputs)
