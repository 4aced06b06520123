"""Operator fusion: partition the graph's calls into kernels (engine.ir.schedule.FusionGroup).

- elementwise chains become one loop nest, taking along the `expand` broadcasts that feed them
  (the loop indexes the smaller input instead of materializing the broadcast);
- a reduction over a group's value closes the group (a "reduction" kernel: loop + accumulate);
- a matmul/addmm takes the elementwise ops right after it as its epilogue (bias-add, activation)
  in one "extern" group: BLAS for the product, one loop for the epilogue;
- anything else (movement, control flow, library ops) is a group of one.

A node joins a group only if that creates no cycle between groups (one of its other inputs must
not itself depend on the group). Groups are then ordered topologically and the graph's nodes
reordered so that each group is contiguous: the schedule the code generator and memory planner use.
"""
from __future__ import annotations

from engine.ir.graph import CALL, CONSTANT, OUTPUT, PLACEHOLDER, Graph, Node
from engine.ir.schedule import ELEMENTWISE_GROUP, EXTERN_GROUP, REDUCTION_GROUP, FusionGroup
from engine.ops.registry import ELEMENTWISE, MATMUL, OPS, REDUCE
from engine.passes.base import PassResult

MAX_NAME_OPS = 4       # group names list at most this many op names


class _Group:
    def __init__(self, index: int, kind: str, first: Node):
        self.index = index
        self.kind = kind
        self.nodes = [first]
        self.shape = tuple(first.out.shape) if first.outputs else ()
        self.closed = kind == REDUCTION_GROUP
        self.epilogue = kind == EXTERN_GROUP and first.kind == CALL and OPS[first.op].kind == MATMUL


def _op_kind(node: Node) -> str | None:
    return OPS[node.op].kind if node.kind == CALL else None


def fusion(graph: Graph) -> PassResult:
    g = graph.copy()
    result = PassResult(g, False)
    group_of: dict[str, _Group] = {}          # node id -> group
    depends: dict[str, set[int]] = {}         # value id -> indices of the groups it depends on
    groups: list[_Group] = []

    def deps_of(v) -> set[int]:
        return depends.get(v.id, set())

    def can_join(group: _Group, node: Node) -> bool:
        if group.closed:
            return False
        for v in node.inputs:
            p = v.producer
            if p is not None and group_of.get(p.id) is group:
                continue
            if group.index in deps_of(v):         # joining would make a cycle between groups
                return False
        return True

    for node in g.nodes:
        if node.kind in (PLACEHOLDER, CONSTANT, OUTPUT):
            continue
        kind = _op_kind(node)
        target = None
        producers = [group_of.get(v.producer.id) for v in node.inputs if v.producer is not None]
        candidates = [p for p in dict.fromkeys(producers) if p is not None]
        if kind == ELEMENTWISE:
            for grp in candidates:
                if grp.kind == ELEMENTWISE_GROUP and grp.shape == tuple(node.out.shape) and can_join(grp, node):
                    target = grp
                    break
                if grp.epilogue and grp.shape == tuple(node.out.shape) and node.inputs and \
                        any(v.producer is grp.nodes[-1] for v in node.inputs) and can_join(grp, node):
                    target = grp
                    break
        elif kind == REDUCE:
            for grp in candidates:
                if grp.kind == ELEMENTWISE_GROUP and tuple(node.inputs[0].shape) == grp.shape \
                        and group_of.get(node.inputs[0].producer.id) is grp and can_join(grp, node):
                    target = grp
                    grp.kind, grp.closed = REDUCTION_GROUP, True
                    break
        if target is None:
            if kind == ELEMENTWISE:
                target = _Group(len(groups), ELEMENTWISE_GROUP, node)
            elif kind == REDUCE:
                target = _Group(len(groups), REDUCTION_GROUP, node)
            else:
                target = _Group(len(groups), EXTERN_GROUP, node)
            groups.append(target)
        else:
            target.nodes.append(node)
        group_of[node.id] = target
        mine = set().union(*(deps_of(v) for v in node.inputs)) | {target.index}
        for v in node.outputs:
            depends[v.id] = mine

    _absorb_broadcasts(g, groups, group_of, depends)
    ordered = _toposort(g, groups, group_of)
    _reorder_nodes(g, ordered)
    users = g.users()
    graph_outputs = {v.id for v in g.outputs}
    plan = []
    for grp in ordered:
        ids = {n.id for n in grp.nodes}
        inputs, outputs = [], []
        for n in grp.nodes:
            for v in n.inputs:
                if (v.producer is None or v.producer.id not in ids) and v.id not in inputs:
                    inputs.append(v.id)
            for v in n.outputs:
                outside = any(u.id not in ids for u in users.get(v.id, []))
                if outside or v.id in graph_outputs:
                    outputs.append(v.id)
        name = _name(grp, len(plan))
        plan.append(FusionGroup(name, grp.kind, [n.id for n in grp.nodes], inputs, outputs))
        if len(grp.nodes) > 1:
            for n in grp.nodes:
                result.note(n.id, f"fused into {name}")
    changed_plan = plan != list(graph.fusion_groups)        # dataclass equality: field by field
    g.fusion_groups = plan
    result.changed = result.changed or changed_plan
    result.extra["groups"] = plan          # the pipeline turns it into JSON for a snapshot
    return result


def _absorb_broadcasts(g: Graph, groups: list[_Group], group_of: dict, depends: dict) -> None:
    """An `expand` whose only users are in one elementwise group moves into that group."""
    users = g.users()
    for grp in list(groups):
        if len(grp.nodes) != 1 or grp.nodes[0].op != "expand":
            continue
        node = grp.nodes[0]
        consumers = users.get(node.id, [])
        targets = {id(group_of.get(u.id)) for u in consumers}
        if len(targets) != 1 or not consumers:
            continue
        host = group_of.get(consumers[0].id)
        if host is None or host.kind not in (ELEMENTWISE_GROUP, REDUCTION_GROUP) or \
                tuple(node.out.shape) != host.shape:
            continue
        # the expand's own input must not depend on the host group (it comes from outside)
        if host.index in depends.get(node.inputs[0].id, set()):
            continue
        host.nodes.insert(0, node)
        group_of[node.id] = host
        groups.remove(grp)


def _toposort(g: Graph, groups: list[_Group], group_of: dict) -> list[_Group]:
    order_index = {n.id: i for i, n in enumerate(g.nodes)}
    for grp in groups:
        grp.nodes.sort(key=lambda n: order_index[n.id])
    preds: dict[int, set[int]] = {id(grp): set() for grp in groups}
    for grp in groups:
        for n in grp.nodes:
            for v in n.inputs:
                src = group_of.get(v.producer.id) if v.producer is not None else None
                if src is not None and src is not grp:
                    preds[id(grp)].add(id(src))
    done: set[int] = set()
    ordered: list[_Group] = []
    remaining = sorted(groups, key=lambda grp: order_index[grp.nodes[0].id])
    while remaining:
        for grp in remaining:
            if preds[id(grp)] <= done:
                ordered.append(grp)
                done.add(id(grp))
                remaining.remove(grp)
                break
        else:
            raise AssertionError("fusion produced a cycle between groups")
    return ordered


def _reorder_nodes(g: Graph, ordered: list[_Group]) -> None:
    head = [n for n in g.nodes if n.kind in (PLACEHOLDER, CONSTANT)]
    body = [n for grp in ordered for n in grp.nodes]
    g.nodes = head + body + [g.output_node]


def _name(grp: _Group, index: int) -> str:
    ops = [n.op if n.kind == CALL else n.kind for n in grp.nodes if not (n.kind == CALL and n.op == "expand" and len(grp.nodes) > 1)]
    if len(grp.nodes) == 1:
        return f"{ops[0]}_{index}"
    names = []
    for op in ops:
        if not names or names[-1] != op:
            names.append(op)
    return "fused_" + "_".join(names[:MAX_NAME_OPS]) + ("_etc" if len(names) > MAX_NAME_OPS else "") + f"_{index}"
