"""The executor's schedule: a graph's fusion plan turned into steps ("units") it can run.

Elementwise/reduction groups become kernels; an extern group splits into its BLAS call, its
epilogue (one kernel: elementwise ops, maybe ending in a reduction) and single-node steps (views,
control flow, library ops). Three lowering rules refine the plan: a kernel whose every output
feeds one other kernel at the same shape is merged into it, transpose(a @ b) becomes one BLAS
call writing b.T @ a.T, and a product whose one reader is an elementwise value of its epilogue is
written by BLAS into that value's array, the epilogue running in place.
"""
from __future__ import annotations

from dataclasses import dataclass

from engine.ir.graph import CALL, COND, WHILE, Graph, Node
from engine.ir.schedule import ELEMENTWISE_GROUP, EXTERN_GROUP, REDUCTION_GROUP, FusionGroup
from engine.ops.registry import ELEMENTWISE, MOVEMENT, OPS, REDUCE

KERNEL_KINDS = (ELEMENTWISE, REDUCE)
# reductions whose C kernel reads its loop's values twice (c_render's "moments" and "logsumexp"):
# an epilogue ending in one cannot overwrite the product it reads (_products_in_place)
TWO_PASS_REDUCTIONS = {"var", "std", "logsumexp"}


@dataclass
class Unit:
    """One step of the schedule: a kernel (a group or part of one), an extern call, a view."""
    kind: str                    # "kernel" | "matmul" | "view" | "op"
    name: str
    node_ids: list[str]
    inputs: list[str]
    outputs: list[str]
    # index of the fusion group (the memory plan's time axis) during which the executor runs it
    step: int = 0
    # a BLAS call writing its product straight into the array of the epilogue value that replaces
    # it (that value's id), the epilogue then running in place: see _products_in_place
    writes_into: str | None = None


def default_groups(graph: Graph) -> list[FusionGroup]:
    """Without a fusion plan every op is its own group."""
    groups = []
    for i, n in enumerate(graph.nodes):
        if n.kind not in (CALL, COND, WHILE):
            continue
        kind = OPS[n.op].kind if n.kind == CALL else None
        gk = ELEMENTWISE_GROUP if kind == ELEMENTWISE else REDUCTION_GROUP if kind == REDUCE else EXTERN_GROUP
        groups.append(FusionGroup(f"{n.op or n.kind}_{len(groups)}", gk, [n.id],
                                  list(dict.fromkeys(v.id for v in n.inputs)), [v.id for v in n.outputs]))
    return groups


def _sub_unit(name, nodes: list[Node], users: dict, graph_outputs: set) -> Unit:
    ids = {n.id for n in nodes}
    inputs = list(dict.fromkeys(v.id for n in nodes for v in n.inputs
                                if v.producer is None or v.producer.id not in ids))
    outputs = [v.id for n in nodes for v in n.outputs
               if v.id in graph_outputs or any(u.id not in ids for u in users.get(v.id, []))]
    return Unit("kernel", name, [n.id for n in nodes], inputs, outputs)


def node_unit(node: Node) -> Unit:
    kind = "op"
    if node.kind == CALL:
        op = OPS[node.op]
        # cat and stack are movement ops that copy: library ops writing into a planned buffer
        kind = "kernel" if op.kind in KERNEL_KINDS or op.normalize else \
            "matmul" if node.op in ("matmul", "addmm") else \
            "view" if op.kind == MOVEMENT and not op.copies else "op"
    return Unit(kind, f"{node.op or node.kind}_{node.id.lstrip('%')}", [node.id],
                list(dict.fromkeys(v.id for v in node.inputs)), [v.id for v in node.outputs])


def plan_units(graph: Graph, nodes_by_id: dict) -> list[Unit]:
    """The fusion plan as executor steps: extern groups split into the call and its epilogue."""
    users = graph.users()
    graph_outputs = {v.id for v in graph.outputs}
    units: list[Unit] = []
    for step, grp in enumerate(graph.fusion_groups or default_groups(graph)):
        nodes = [nodes_by_id[i] for i in grp.node_ids]
        if grp.kind in (ELEMENTWISE_GROUP, REDUCTION_GROUP) and len(nodes) > 1:
            units.append(Unit("kernel", grp.name, list(grp.node_ids), list(grp.inputs), list(grp.outputs), step))
            continue
        run: list[Node] = []
        first = len(units)                              # this group's units start here
        for n in nodes + [None]:
            in_loop = n is not None and n.kind == CALL and OPS[n.op].kind in KERNEL_KINDS
            if in_loop:
                run.append(n)
            # a reduction ends its loop nest (an epilogue's too: a bias gradient summed in the loop
            # that computes it), and so does any other step; the loop after an extern call is its
            # epilogue
            if run and (not in_loop or OPS[n.op].kind == REDUCE):
                name = grp.name if len(run) == len(nodes) else f"{grp.name}_epilogue"
                units.append(_sub_unit(name, run, users, graph_outputs))
                run = []
            if n is not None and not in_loop:
                units.append(node_unit(n))
        for u in units[first:]:
            u.step = step
    units = _fold_transposed_products(units, nodes_by_id, users, graph_outputs)
    units = _merge_single_consumer_kernels(units, nodes_by_id, users, graph_outputs)
    _products_in_place(units, nodes_by_id, users, graph_outputs)
    names: dict[str, int] = {}
    for u in units:                     # C function names must be unique identifiers
        u.name = "".join(ch if ch.isalnum() or ch == "_" else "_" for ch in u.name)
        if u.name in names:
            names[u.name] += 1
            u.name = f"{u.name}_{names[u.name]}"
        else:
            names[u.name] = 0
    return units


def _merge_single_consumer_kernels(units: list[Unit], nodes_by_id, users, graph_outputs) -> list[Unit]:
    """Merge an elementwise kernel into the one kernel that reads all its outputs at their own shape.

    Fusion adds a node to one producer's group, so a join of two chains (0.5*x times 1+tanh(...)
    in a hand-written GELU) leaves two loops and an intermediate array between them. Moving the
    producer's loop body into its only consumer is always legal (nothing else reads its outputs,
    so nothing in between can depend on them) and saves that array's write and read.

    After a merge the scan resumes at the merged kernel, not at the first unit: a unit before it
    that did not merge still cannot (its producers' outputs and readers are the same, and the merged
    kernel is all elementwise exactly when the consumer was), so the merges are the ones a restart
    would make, without the restart's cost (cubic in a graph of a few hundred kernels: threefry's)."""
    start, changed = 0, True
    while changed:
        changed = False
        producer_of = {v: i for i, u in enumerate(units) if u.kind == "kernel" for v in u.outputs}
        for b in range(start, len(units)):
            ub = units[b]
            if ub.kind != "kernel":
                continue
            inside = set(ub.node_ids)
            for v in ub.inputs:
                a = producer_of.get(v)
                if a is None or a == b:
                    continue
                ua = units[a]
                # only loop nests merge: an elementwise producer into an elementwise/reduction
                # consumer (a softmax kernel has a shape of its own)
                if any(OPS[nodes_by_id[n].op].kind not in (ELEMENTWISE, MOVEMENT) for n in ua.node_ids) or \
                        any(OPS[nodes_by_id[n].op].normalize for n in ub.node_ids):
                    continue
                if not all(o not in graph_outputs and users.get(o) and
                           all(u.id in inside and tuple(u.out.shape) == tuple(nodes_by_id[o.split(".")[0]].out.shape)
                               for u in users[o]) for o in ua.outputs):
                    continue
                merged = Unit("kernel", ub.name, ua.node_ids + ub.node_ids,
                              list(dict.fromkeys(ua.inputs + [i for i in ub.inputs if i not in ua.outputs])),
                              list(ub.outputs), ub.step)          # it runs where the consumer runs
                units = [merged if i == b else u for i, u in enumerate(units) if i != a]
                start = b - 1 if a < b else b
                changed = True
                break
            if changed:
                break
    return units


def _fold_transposed_products(units: list[Unit], nodes_by_id, users, graph_outputs) -> list[Unit]:
    """transpose(a @ b) as b.T @ a.T in one BLAS call writing a C-ordered result.

    Graph autodiff gives nn.Linear's weight gradient as (x.T @ grad).T; run literally, that is a
    transposed view, and every later use of it (the optimizer step, .grad accumulation) walks memory
    with a large stride. BLAS takes transposed operands for free, so the product is computed in the
    layout its user wants, as production compilers pick BLAS's transpose flags."""
    by_output = {u.outputs[0]: i for i, u in enumerate(units) if u.kind == "matmul" and len(u.outputs) == 1}
    drop = set()
    for i, u in enumerate(units):
        if u.kind != "view":
            continue
        t = nodes_by_id[u.node_ids[0]]
        src = t.inputs[0].id
        j = by_output.get(src)
        if j is None or t.op not in ("transpose", "permute") or len(t.out.shape) != 2 or \
                src in graph_outputs or [n.id for n in users.get(src, [])] != [t.id]:
            continue
        m = nodes_by_id[units[j].node_ids[0]]
        if m.op != "matmul" or any(len(v.shape) != 2 for v in m.inputs):
            continue
        # it runs where the product ran: its result is in memory from then on
        units[j] = Unit("matmul", units[j].name, [m.id, t.id], list(units[j].inputs), [t.id], units[j].step)
        units[j].transposed = True
        drop.add(i)
    return [u for i, u in enumerate(units) if i not in drop]


def in_place_products(units: list[Unit]) -> dict[str, str]:
    """Product id -> the id of the epilogue value whose array the BLAS call writes it into."""
    return {u.outputs[0]: u.writes_into for u in units if u.writes_into is not None}


def _products_in_place(units: list[Unit], nodes_by_id, users, graph_outputs) -> None:
    """Let BLAS write a product straight into the array of the epilogue value that replaces it, the
    epilogue then running in place, as numpy code does by hand (h = x @ w; np.maximum(h, 0, out=h)):
    one array where there were two, and a buffer the memory plan need not find. (The call and its
    epilogue are one step of the plan, so a product and the epilogue's value are live together
    there: without this, an epilogue cannot take the buffer of a value its own call read last.)

    Safe element by element only where the product has one reader, an elementwise node of the
    epilogue kernel right after the call, whose value that kernel stores at the product's shape and
    dtype (each element is read before the same element is written, in one loop), the kernel makes
    one pass over its loop (var, std, logsumexp read it twice), and the call writes with `out=`
    (one dtype throughout, as the executor requires)."""
    for call, epilogue in zip(units, units[1:]):
        if call.kind != "matmul" or epilogue.kind != "kernel" or call.step != epilogue.step or \
                getattr(call, "transposed", False):
            continue
        node = nodes_by_id[call.node_ids[0]]
        product = node.id
        readers = {n.id: n for n in users.get(product, [])}
        if call.outputs != [product] or product in graph_outputs or len(readers) != 1:
            continue
        (reader,) = readers.values()
        if reader.id not in epilogue.node_ids or reader.kind != CALL or OPS[reader.op].kind != ELEMENTWISE or \
                reader.id not in epilogue.outputs or tuple(reader.out.shape) != tuple(node.out.shape) or \
                reader.out.dtype != node.out.dtype:
            continue
        if any(nodes_by_id[i].op in TWO_PASS_REDUCTIONS for i in epilogue.node_ids):
            continue
        dtypes = {v.dtype for v in node.inputs} | {node.out.dtype}
        if len(dtypes) != 1 or any(len(v.shape) < 1 for v in node.inputs[-2:]):
            continue
        call.writes_into = reader.id
