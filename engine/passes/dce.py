"""Dead-code elimination: nodes whose values nobody reads are removed (inputs always stay, and so do
impure ops and the conds and loops holding one), inside branches and loop bodies too; a cond also loses the results nobody reads and the operands its
branches no longer use."""
from __future__ import annotations

from engine.ir.graph import COND, OUTPUT, PLACEHOLDER, Graph, Node
from engine.passes.base import PassResult, is_pure, reason


def dce(graph: Graph) -> PassResult:
    g = graph.copy()
    result = PassResult(g, False)
    _sweep(g, result)
    return result


def _sweep(g: Graph, result: PassResult) -> None:
    used: set[str] = set()
    for node in reversed(list(g.nodes)):
        if node.kind in (OUTPUT, PLACEHOLDER):
            used.update(v.id for v in node.inputs)
            continue
        if not any(v.id in used for v in node.outputs) and is_pure(node) and not _holds_effects(node):
            g.remove(node)
            result.note(node.id, reason("dce_no_users"))
            continue
        if node.kind == COND:
            _prune_cond_results(node, used, result)
        for sub in node.subgraphs.values():
            _sweep(sub, result)
        if node.kind == COND:
            _prune_cond_operands(node, result)
        used.update(v.id for v in node.inputs)


def _holds_effects(node: Node) -> bool:
    """A cond or loop whose branches or body hold an impure op (a tf.print) runs for its effect."""
    return any(not is_pure(n) or _holds_effects(n) for sub in node.subgraphs.values() for n in sub.nodes)


def _prune_cond_results(node: Node, used: set, result: PassResult) -> None:
    # the first result names the node, so it stays even when unused
    keep = [i for i, v in enumerate(node.outputs) if i == 0 or v.id in used]
    if len(keep) == len(node.outputs):
        return
    for i, v in enumerate(node.outputs):
        if i not in keep:
            result.note(v.id, reason("dce_cond_result"))
    node.outputs = [node.outputs[i] for i in keep]
    for branch in node.subgraphs.values():
        branch.output([branch.outputs[i] for i in keep])


def _prune_cond_operands(node: Node, result: PassResult) -> None:
    branches = list(node.subgraphs.values())
    operands = node.inputs[1:]
    users = [b.users() for b in branches]
    dead = [i for i in range(len(operands))
            if all(not u.get(b.placeholders[i].id) for b, u in zip(branches, users))]
    if not dead:
        return
    for b in branches:
        holders = b.placeholders
        for i in dead:
            b.remove(holders[i])
    node.inputs = [node.inputs[0]] + [v for i, v in enumerate(operands) if i not in dead]
    result.note(node.id, reason("dce_operands" if len(dead) > 1 else "dce_operand", n=len(dead)))
