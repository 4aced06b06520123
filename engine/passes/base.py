"""What every pass returns, and small helpers the passes share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from engine.ir.graph import CONSTANT, Graph, Node, Value
from engine.ops.registry import OPS


@dataclass(frozen=True)
class Reason:
    """Why a pass rewrote a node: the English text, and the page's message key with the parameters
    it words the text from in the page's language (static/i18n/*.json `pass_note.<key>`; the
    English catalog says exactly `text`, tests/engine/test_pass_notes_i18n.py checks it).
    A parameter is an id, an op or group name, a number, or a list of ids."""
    key: str
    params: tuple = ()

    def text(self) -> str:
        return REASON_TEXTS[self.key].format(**{k: " and ".join(v) if isinstance(v, tuple) else v
                                                 for k, v in self.params})

    def json(self) -> dict:
        return {"key": f"pass_note.{self.key}",
                "params": {k: list(v) if isinstance(v, tuple) else v for k, v in self.params}}


def reason(key: str, **params) -> Reason:
    return Reason(key, tuple((k, tuple(v) if isinstance(v, list) else v) for k, v in params.items()))


# The English of every pass note (the catalog's pass_note.* entries say the same).
REASON_TEXTS = {
    "folded_constant": "folded: all inputs constant",
    "folded_predicate": "folded: predicate is constant, inlined the {branch} branch",
    "folded_operand": "folded: constant operand {value} moved into the branches",
    "cse_same": "CSE: same as {first}",
    "dce_no_users": "DCE: no users",
    "dce_cond_result": "DCE: cond result with no users",
    "dce_operand": "DCE: {n} unused branch operand dropped",
    "dce_operands": "DCE: {n} unused branch operands dropped",
    "zero_integers": "x*0 -> 0 (integers: no NaN/inf)",
    "permute_identity": "permute(x, identity) -> x",
    "permute_one": "permute(permute(x)) -> one permute",
    "reshape_same": "reshape to the same shape -> x",
    "reshape_one": "reshape(reshape(x)) -> one reshape",
    "expand_same": "expand to the same shape -> x",
    "sum_to_size_same": "sum_to_size to the same shape -> x",
    "fused_head_elementwise": "fused into {group}: elementwise, starts the loop",
    "fused_head_reduction": "fused into {group}: {op} starts and ends its loop",
    "fused_head_epilogue": "fused into {group}: {op} runs as an extern call; elementwise ops on its result form its epilogue",
    "fused_head_alone": "fused into {group}: {op} runs on its own",
    "fused_epilogue": "fused into {group}: elementwise epilogue of {op} {head} (same shape as {tie})",
    "fused_epilogue_merge": "fused into {group}: elementwise epilogue of {op} {head} (same shape as {tie}); the loop of {others} moves into it",
    "fused_elementwise": "fused into {group}: elementwise, same shape as {ties}",
    "fused_elementwise_merge": "fused into {group}: elementwise, same shape as {ties}: {n} loops merge into one",
    "fused_reduction_epilogue": "fused into {group}: {op} of {source} in the epilogue loop of {head_op} {head}; a reduction ends the loop",
    "fused_reduction": "fused into {group}: {op} of {source} in the same loop; a reduction ends the group",
    "fused_broadcast": "fused into {group}: broadcast read in place by the loop of {consumer}",
    "memory_reuses": "reuses {buffer} (after {previous})",
    "memory_view": "a view of {source}: no memory of its own",
    "memory_blas": "written by BLAS straight into the array of {value}, which its epilogue then computes in place",
}


@dataclass
class PassResult:
    graph: Graph
    changed: bool
    # [{"node": "%5", "reason": "folded: all inputs constant", "key": "pass_note.folded_constant", "params": {}}]
    notes: list[dict] = field(default_factory=list)
    extra: dict = field(default_factory=dict)         # pass-specific data for the page (e.g. the memory plan)
    # node id -> id of the node whose value now stands for it (CSE, x*1 -> x, an inlined branch):
    # how the page follows one node's identity from the captured graph to its kernel
    replaced: dict[str, str] = field(default_factory=dict)

    def note(self, node_id: str, why: "Reason | str", changed: bool = True) -> None:
        """A note on `node_id`: a Reason (worded in the page's language), or a formula that reads
        the same in every language ("x*1 -> x")."""
        if isinstance(why, Reason):
            self.notes.append({"node": node_id, "reason": why.text(), **why.json()})
        else:
            self.notes.append({"node": node_id, "reason": why})
        self.changed = self.changed or changed

    def replace(self, node_id: str, by: Value) -> None:
        """Record that `node_id`'s value is now `by` (its users read `by` instead)."""
        self.replaced[node_id] = by.producer.id if by.producer is not None else by.id


def all_graphs(graph: Graph) -> Iterator[Graph]:
    """The graph and, recursively, the sub-graphs of its cond/while nodes."""
    yield graph
    for n in list(graph.nodes):
        for sub in n.subgraphs.values():
            yield from all_graphs(sub)


def rewrite_every_graph(graph: Graph, rewrite: Callable[[Graph, PassResult], None]) -> PassResult:
    """A pass that rewrites a copy of the graph and each of its sub-graphs in place, noting what it
    changed on the one result."""
    g = graph.copy()
    result = PassResult(g, False)
    for sub in list(all_graphs(g)):
        rewrite(sub, result)
    return result


def constant_of(v: Value) -> np.ndarray | None:
    p = v.producer
    return p.value if p is not None and p.kind == CONSTANT else None


def is_pure(node: Node) -> bool:
    """Ops marked random or stateful in the registry must not be folded or merged."""
    extra = OPS[node.op].extra if node.op in OPS else {}
    return not (extra.get("random") or extra.get("impure"))
