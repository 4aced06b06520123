"""Operator fusion: partition the graph's calls into kernels (engine.ir.schedule.FusionGroup).

A kernel is one loop over one iteration space, so the rules follow the iteration space:
- elementwise ops whose results have the same shape form one loop nest, whatever the DAG inside
  looks like: a value used several times (x in 0.5*x*(1+tanh(0.79788456*(x+0.044715*x**3))))
  is read once per element, and when two chains meet, their two loops merge into one;
- the loop takes along the `expand` broadcasts that feed it (it indexes the smaller input instead
  of materializing the broadcast);
- a reduction over a loop's value ends that loop (a "reduction" kernel: loop + accumulate);
- a matmul/addmm/conv2d is an extern call (BLAS, im2col) and takes the elementwise ops on its
  result as its epilogue ("extern" group: the call, then one loop at the call's output shape);
  a loop that meets the epilogue moves into it, unless it feeds the call; a reduction of a value
  the epilogue computes ends the epilogue's loop, as it ends any loop (the bias gradient of a
  linear layer, sum over the batch of relu's gradient, in the loop that computes that gradient);
- anything else (movement, control flow, library ops) is a group of one.

Nodes join or merge groups only if that creates no cycle between groups: no value a group reads
from outside may itself depend on that group. Dependencies are tracked between groups, not values:
a group runs as one unit, so once any node of G reads from H, every value G produces (also the
ones computed before that node) comes after H. Groups are then ordered topologically and the
graph's nodes reordered so that each group is contiguous: the schedule the code generator and
memory planner use. Every fused node gets a note saying why it joined ("fused into
fused_mul_add_0: elementwise, same shape as %3").
"""
from __future__ import annotations

from engine.ir.graph import CALL, CONSTANT, OUTPUT, PLACEHOLDER, Graph, Node
from engine.ir.schedule import ELEMENTWISE_GROUP, EXTERN_GROUP, REDUCTION_GROUP, FusionGroup
from engine.ops.registry import ELEMENTWISE, MATMUL, OPS, REDUCE
from engine.passes.base import PassResult, reason

MAX_NAME_OPS = 4                  # group names list at most this many op names
EPILOGUE_HOSTS = {"conv2d"}       # library calls besides MATMUL-kind ops that take an epilogue


class _Group:
    def __init__(self, index: int, kind: str, first: Node):
        self.index = index
        self.indices = [index]    # its own index and those of the groups merged into it
        self.bits = 1 << index    # the same, as a bit set
        self.kind = kind
        self.nodes = [first]
        self.head = first
        self.shape = tuple(first.out.shape) if first.outputs else ()
        self.closed = kind == REDUCTION_GROUP
        self.epilogue = kind == EXTERN_GROUP and first.kind == CALL and \
            (OPS[first.op].kind == MATMUL or first.op in EPILOGUE_HOSTS)
        self.ancestors = 0        # bit set of the indices of the groups it depends on, transitively
        self.readers: set[int] = set()   # indices of the groups that read its values (maybe merged since)

    def loop_accepts(self, node: Node) -> bool:
        """An open elementwise loop over `node`'s iteration space."""
        return self.kind == ELEMENTWISE_GROUP and not self.closed and self.shape == tuple(node.out.shape)


def _op_kind(node: Node) -> str | None:
    return OPS[node.op].kind if node.kind == CALL else None


class _Partition:
    """The greedy partition, built in one walk over the nodes (topological order)."""

    def __init__(self):
        self.groups: list[_Group] = []
        self.group_of: dict[str, _Group] = {}       # node id -> its group
        self.by_index: dict[int, _Group] = {}       # group index (also a merged one) -> its live group
        self.reasons: dict[str, tuple] = {}         # node id -> why it is in its group: (REASON_TEXTS key, params)
        self.readers: dict[str, list[str]] = {}     # value id -> ids of the nodes placed so far that read it
        self.next_index = 0                          # group indices are never reused after a merge

    def producer_group(self, v) -> _Group | None:
        return self.group_of.get(v.producer.id) if v.producer is not None else None

    @staticmethod
    def reaches(sources, targets: list[_Group]) -> bool:
        """Does one of the groups `sources` depend on (or is it) one of `targets`?"""
        wanted = 0
        for grp in targets:
            wanted |= grp.bits
        return any((grp.bits | grp.ancestors) & wanted for grp in sources)

    def depend(self, reader: _Group, source: _Group) -> None:
        """`reader` reads a value of `source`: it, and every group that depends on it, now
        depends on `source` and on what `source` depends on."""
        source.readers.add(reader.index)
        self._inherit(reader, source.bits | source.ancestors)

    def _inherit(self, grp: _Group, bits: int) -> None:
        """`grp` and, transitively, the groups reading it now depend on the groups in `bits`."""
        work = [(grp, bits)]
        while work:
            grp, bits = work.pop()
            if not bits & ~grp.ancestors:
                continue            # nothing new: its readers have it already
            grp.ancestors |= bits
            passed_on = grp.bits | grp.ancestors
            work.extend((reader, passed_on) for reader in self._live_readers(grp))

    def _live_readers(self, grp: _Group) -> list[_Group]:
        return list({id(r): r for r in map(self.by_index.get, grp.readers) if r is not grp}.values())

    def legal(self, members: list[_Group], node: Node) -> bool:
        """May `members` and `node` become one group? Not if a group they read from outside
        depends on one of them: the merged group would then have to run before and after it."""
        # the members' own outside inputs were checked against their own group when they joined;
        # after a merge they must also not depend on the other members
        to_check = [node] + ([n for grp in members for n in grp.nodes] if len(members) > 1 else [])
        sources = {id(grp): grp for n in to_check for grp in map(self.producer_group, n.inputs)
                   if grp is not None and grp not in members}
        return not self.reaches(sources.values(), members)

    def feeds_head(self, other: _Group, host: _Group) -> bool:
        """Does `other` compute something `host`'s head call reads? (An epilogue runs after its
        call, so such a loop cannot move into it.)"""
        return self.reaches(filter(None, map(self.producer_group, host.head.inputs)), [other])

    def merge(self, host: _Group, other: _Group) -> None:
        host.nodes.extend(other.nodes)
        for n in other.nodes:
            self.group_of[n.id] = host
        for index in other.indices:         # groups that read from `other` now read from `host`
            self.by_index[index] = host
        host.indices += other.indices
        host.bits |= other.bits
        host.readers |= other.readers
        self.groups.remove(other)
        # every group that depended on either now depends on the merged group and all it depends on
        # (when `other` read `host`, host's bits join its ancestors: harmless, it only depends on itself)
        host.ancestors |= other.ancestors
        passed_on = host.bits | host.ancestors
        for reader in self._live_readers(host):
            self._inherit(reader, passed_on)

    def place(self, node: Node) -> None:
        kind = _op_kind(node)
        target = None
        if kind == ELEMENTWISE:
            target = self._elementwise_home(node)
        elif kind == REDUCE:
            target = self._reduction_home(node)
        if target is None:
            group_kind = ELEMENTWISE_GROUP if kind == ELEMENTWISE else REDUCTION_GROUP if kind == REDUCE else EXTERN_GROUP
            target = _Group(self.next_index, group_kind, node)
            self.next_index += 1
            self.by_index[target.index] = target
            self.groups.append(target)
            self.reasons[node.id] = _head_reason(node, target)
        else:
            target.nodes.append(node)
        self.group_of[node.id] = target
        for v in node.inputs:
            source = self.producer_group(v)
            if source is not None and source is not target:
                self.depend(target, source)
            self.readers.setdefault(v.id, []).append(node.id)

    def _links(self, node: Node) -> list[tuple[_Group, str, bool]]:
        """The groups `node` could join, in preference order, each with the value that ties it to
        `node` and whether that group produces it: first the groups producing its inputs, then
        sibling groups that already read one of its inputs (constants aside: every loop reads some)."""
        links: dict[int, tuple[_Group, str, bool]] = {}
        for v in node.inputs:
            grp = self.producer_group(v)
            if grp is not None and id(grp) not in links:
                links[id(grp)] = (grp, v.id, True)
        for v in node.inputs:
            if v.producer is not None and v.producer.kind == CONSTANT:
                continue
            for reader in self.readers.get(v.id, []):
                grp = self.group_of[reader]
                if id(grp) not in links:
                    links[id(grp)] = (grp, f"{reader} (which also reads {v.id})", False)
        return list(links.values())

    def _elementwise_home(self, node: Node) -> _Group | None:
        """The first linked group that can take `node`: a loop over its iteration space, or an
        extern call's epilogue when `node` reads its result. The other same-shape loops linked to
        `node` merge into it where that creates no cycle (and, for an epilogue, where they do not
        feed the call): one loop per DAG."""
        shape = tuple(node.out.shape)
        links = self._links(node)
        loops = [(grp, tie) for grp, tie, _ in links if grp.loop_accepts(node)]
        for host, tie, produces in links:
            takes = host.loop_accepts(node) or \
                (produces and host.epilogue and not host.closed and host.shape == shape)
            if not takes or not self.legal([host], node):
                continue
            merged, ties = [host], [tie]
            for other, other_tie in loops:
                if other in merged or (host.epilogue and self.feeds_head(other, host)):
                    continue
                if self.legal(merged + [other], node):
                    merged.append(other)
                    ties.append(other_tie)
            for other in merged[1:]:
                self.merge(host, other)
            if host.epilogue:
                why = ("fused_epilogue_merge", {"others": ties[1:]}) if len(merged) > 1 else ("fused_epilogue", {})
                why[1].update(op=host.head.op, head=host.head.id, tie=tie)
            else:
                why = ("fused_elementwise_merge", {"ties": ties, "n": len(merged)}) if len(merged) > 1 \
                    else ("fused_elementwise", {"ties": ties})
            self.reasons[node.id] = why
            return host
        return None

    def _reduction_home(self, node: Node) -> _Group | None:
        """A reduction of a loop's value, over that loop's iteration space, ends the loop: an
        elementwise loop's, or an extern call's epilogue loop when the epilogue computes the value
        (a reduction of the call's raw result stays a kernel of its own: joining would save no pass
        over memory, BLAS has written the result anyway, and it would close the epilogue early)."""
        source = node.inputs[0]
        grp = self.producer_group(source)
        if grp is None or grp.closed or tuple(source.shape) != grp.shape:
            return None
        in_epilogue = grp.epilogue and source.producer is not grp.head
        if (grp.kind == ELEMENTWISE_GROUP or in_epilogue) and self.legal([grp], node):
            grp.closed = True
            if in_epilogue:       # still an extern group: the call, then its loop ending in the reduction
                self.reasons[node.id] = ("fused_reduction_epilogue", {"op": node.op, "source": source.id,
                                                                      "head_op": grp.head.op, "head": grp.head.id})
            else:
                grp.kind = REDUCTION_GROUP
                self.reasons[node.id] = ("fused_reduction", {"op": node.op, "source": source.id})
            return grp
        return None


def _head_reason(node: Node, grp: _Group) -> tuple:
    if grp.kind == ELEMENTWISE_GROUP:
        return "fused_head_elementwise", {}
    if grp.kind == REDUCTION_GROUP:
        return "fused_head_reduction", {"op": node.op}
    if grp.epilogue:
        return "fused_head_epilogue", {"op": node.op}
    return "fused_head_alone", {"op": node.op or node.kind}


def fusion(graph: Graph) -> PassResult:
    g = graph.copy()
    result = PassResult(g, False)
    part = partition(g)
    ordered = _toposort(g, part.groups, part.group_of)
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
                key, params = part.reasons[n.id]
                result.note(n.id, reason(key, group=name, **params))
    changed_plan = plan != list(graph.fusion_groups)        # dataclass equality: field by field
    g.fusion_groups = plan
    result.changed = result.changed or changed_plan
    result.extra["groups"] = plan          # the pipeline turns it into JSON for a snapshot
    return result


def partition(g: Graph) -> _Partition:
    """The groups of `g`'s op nodes (in walk order; `fusion` orders them and names them)."""
    part = _Partition()
    for node in g.nodes:
        if node.kind not in (PLACEHOLDER, CONSTANT, OUTPUT):
            part.place(node)
    _absorb_broadcasts(g, part)
    return part


def _absorb_broadcasts(g: Graph, part: _Partition) -> None:
    """An `expand` whose only users are in one elementwise group moves into that group."""
    users = g.users()
    for grp in list(part.groups):
        if len(grp.nodes) != 1 or grp.nodes[0].op != "expand":
            continue
        node = grp.nodes[0]
        consumers = users.get(node.id, [])
        targets = {id(part.group_of.get(u.id)) for u in consumers}
        if len(targets) != 1 or not consumers:
            continue
        host = part.group_of.get(consumers[0].id)
        if host is None or host.kind not in (ELEMENTWISE_GROUP, REDUCTION_GROUP) or \
                tuple(node.out.shape) != host.shape:
            continue
        # the expand's own input must not depend on the host group (it comes from outside)
        source = part.producer_group(node.inputs[0])
        if source is not None and part.reaches([source], [host]):
            continue
        part.merge(host, grp)           # (_toposort puts the group's nodes back in graph order)
        part.reasons[node.id] = ("fused_broadcast", {"consumer": consumers[0].id})


def _toposort(g: Graph, groups: list[_Group], group_of: dict) -> list[_Group]:
    order_index = {n.id: i for i, n in enumerate(g.nodes)}
    for grp in groups:
        grp.nodes.sort(key=lambda n: order_index[n.id])
        if grp.epilogue:
            # the call first, then its epilogue: loops that moved into it may come earlier in the
            # graph, but never feed the call (see _elementwise_home)
            grp.nodes.remove(grp.head)
            grp.nodes.insert(0, grp.head)
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
