"""What every pass returns, and small helpers the passes share."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable, Iterator

import numpy as np

from engine.ir.graph import CONSTANT, Graph, Node, Value
from engine.ops.registry import OPS


@dataclass
class PassResult:
    graph: Graph
    changed: bool
    notes: list[dict] = field(default_factory=list)   # [{"node": "%5", "reason": "folded: all inputs constant"}]
    extra: dict = field(default_factory=dict)         # pass-specific data for the page (e.g. the memory plan)
    # node id -> id of the node whose value now stands for it (CSE, x*1 -> x, an inlined branch):
    # how the page follows one node's identity from the captured graph to its kernel
    replaced: dict[str, str] = field(default_factory=dict)

    def note(self, node_id: str, reason: str) -> None:
        self.notes.append({"node": node_id, "reason": reason})
        self.changed = True

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
