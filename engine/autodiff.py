"""Graph autodiff: the backward of a graph is a graph, built from the registry's vjp rules.

`joint_graph(fwd)` appends, after a copy of the forward nodes, one placeholder per forward output
(its incoming gradient, "grad_<i>") and the vjp nodes in reverse order; it returns the forward
outputs followed by the gradients of the chosen inputs. `backward_graph(fwd)` cuts that joint
graph in two: the backward part alone, whose inputs are the forward values it reads ("saved"
values, as autograd saves tensors) and the incoming gradients. A `cond` is differentiated by a
`cond` on the same predicate whose branches recompute their forward and apply its vjp; a
`while_loop` by a loop that walks its iterations backwards, recomputing each state (see _while_vjp).

Every backward node made while differentiating a forward node remembers it (`forward_of`: backward
node id -> forward node id, as an eager backward node knows its forward partner), so the run record
can link a captured graph's backward to its forward. Nodes of no forward node's vjp — the incoming
gradients, a zero gradient for an input nothing reached — have no entry. The joint graph also logs
what each vjp received and sent (`steps`), which the run record turns into backprop steps.
"""
from __future__ import annotations

import bisect
from dataclasses import dataclass, field

import numpy as np

from engine.errors import UnsupportedError
from engine.ir.builder import IRBuilder
from engine.ir.graph import CALL, COND, OUTPUT, PLACEHOLDER, WHILE, Graph, Node, Value
from engine.ops.registry import OPS


def differentiable_value(v: Value) -> bool:
    return np.dtype(v.dtype).kind == "f"


def zeros_like(g: Graph, v: Value) -> Value:
    """A zero gradient: a scalar constant expanded (no large constant in the graph)."""
    zero = g.constant(np.zeros((), dtype=v.dtype))
    return g.call("expand", zero, shape=tuple(v.shape)) if v.shape else zero


def depends_on(graph: Graph, sources: set[str]) -> set[str]:
    """Ids of the values computed from `sources` (only these need gradients)."""
    live = set(sources)
    for n in graph.nodes:
        if n.kind in (CALL, COND, WHILE) and any(v.id in live for v in n.inputs):
            live.update(v.id for v in n.outputs)
    return live


def _accumulate(g: Graph, grads: dict, v: Value, grad: Value | None, needs: set | None = None) -> Value | None:
    """Add `grad` into v's gradient; returns what was added (after undoing broadcasting), or None."""
    if grad is None or not differentiable_value(v) or (needs is not None and v.id not in needs):
        return None
    if tuple(grad.shape) != tuple(v.shape):      # undo broadcasting, as eager autograd does
        grad = g.call("sum_to_size", grad, shape=tuple(v.shape))
    if grad.dtype != v.dtype:
        raise UnsupportedError(f"gradient dtype {grad.dtype} differs from {v.id}'s dtype {v.dtype}")
    old = grads.get(v.id)
    grads[v.id] = grad if old is None else g.call("add", old, grad)
    return grad


def _id_number(node_id: str) -> int | None:
    """7 for "%7"; None for an id the counter did not give ("output")."""
    return int(node_id[1:]) if node_id.startswith("%") and node_id[1:].isdigit() else None


@dataclass
class VjpStep:
    """One forward node differentiated: the gradients it received (per output) and sent (per input,
    None where none), as value ids of the graph that holds the backward."""
    forward: str
    grads_in: list
    grads_out: list


def _emit_vjps(g: Graph, forward_nodes: list[Node], grads: dict, needs: set,
               forward_of: dict | None = None, steps: list | None = None) -> None:
    """Append the vjp of each forward node (in reverse) to `g`, filling `grads` (value id -> grad)
    for the values in `needs` (those that depend on a differentiated input). `forward_of`, when
    given, gets backward node id -> the forward node whose vjp made it; `steps` a VjpStep per
    forward node differentiated, in the order they were."""
    F = IRBuilder(g)
    spans: list[tuple[int, int, str]] = []       # (first, last + 1) id numbers one node's vjp took, its id
    for node in reversed(forward_nodes):
        if node.kind not in (CALL, COND, WHILE):
            continue
        outs = [grads.get(v.id) for v in node.outputs]
        if all(o is None for o in outs):
            continue
        first = g._counter.next
        sent = _emit_one(g, F, node, outs, grads, needs)
        spans.append((first, g._counter.next, node.id))
        if steps is not None:
            steps.append(VjpStep(node.id, [o.id if o is not None else None for o in outs],
                                 [s.id if s is not None else None for s in sent]))
    g.current_line = g.current_module = None
    if forward_of is not None and spans:
        # ids come from one counter, so the span of ids a vjp took names its nodes (sub-graph
        # nodes take ids too, but only top-level nodes are looked up)
        starts = [first for first, _, _ in spans]
        for n in g.nodes:
            k = _id_number(n.id)
            i = bisect.bisect_right(starts, k) - 1 if k is not None else -1
            if i >= 0 and k < spans[i][1]:
                forward_of[n.id] = spans[i][2]


def _emit_one(g: Graph, F: IRBuilder, node: Node, outs: list, grads: dict, needs: set) -> list:
    """The vjp of one forward node; returns the gradient it sent to each input (None where none)."""
    g.current_line, g.current_module = node.source_line, node.module
    if node.kind == CALL:
        op = OPS[node.op]
        if not op.differentiable:
            return [None] * len(node.inputs)
        in_grads = op.vjp(F, outs[0], *node.inputs, node.out, **node.attrs)
        return [_accumulate(g, grads, v, gv, needs) for v, gv in zip(node.inputs, in_grads)]
    if node.kind == COND:
        return [None] + _cond_vjp(g, node, outs, grads, needs)       # the predicate gets none
    return _while_vjp(g, node, outs, grads, needs)


def vjp_graph(fwd: Graph) -> Graph:
    """A closed graph (inputs..., grad_outputs...) -> (grad of each input): a sub-graph's backward."""
    g = fwd.copy()
    g.name = fwd.name + ".vjp"
    g.nodes.remove(g.output_node)
    g.output_node = None
    forward_nodes = list(g.nodes)
    primals = list(g.inputs)
    grads: dict = {}
    for i, out in enumerate(list(g.outputs)):
        seed = g.placeholder(f"grad_{i}", out.shape, out.dtype)
        _accumulate(g, grads, out, seed)
    _emit_vjps(g, forward_nodes, grads, depends_on(g, {v.id for v in primals}))
    g.output([grads.get(v.id) or zeros_like(g, v) for v in primals])
    return g


def _cond_vjp(g: Graph, node: Node, outs: list, grads: dict, needs: set) -> list:
    pred, operands = node.inputs[0], node.inputs[1:]
    seeds = [o if o is not None else zeros_like(g, v) for o, v in zip(outs, node.outputs)]
    then_b = _rehome(vjp_graph(node.subgraphs["then"]), g, "then_vjp")
    else_b = _rehome(vjp_graph(node.subgraphs["else"]), g, "else_vjp")
    results = g.cond(pred, then_b, else_b, list(operands) + seeds)
    return [_accumulate(g, grads, v, gv, needs) for v, gv in zip(operands, results)]


def _rehome(sub: Graph, parent: Graph, name: str) -> Graph:
    """Give a sub-graph fresh ids from `parent`'s counter (SSA ids stay unique across the capture)."""
    out = parent.subgraph(name)
    args = [out.placeholder(p.out.name, p.out.shape, p.out.dtype, role=p.role) for p in sub.placeholders]
    out.output(inline(out, sub, args))
    return out


def inline(target: Graph, source: Graph, args: list[Value]) -> list[Value]:
    """Copy `source`'s nodes into `target` (fresh ids), its placeholders bound to `args`; returns
    what `source` returns: calling a closed graph from another."""
    mapping: dict[str, Value] = {p.id: a for p, a in zip(source.inputs, args)}
    for n in source.nodes:
        if n.kind in (PLACEHOLDER, OUTPUT):
            continue
        nid = target.fresh_id()
        m = Node(nid, n.kind, inputs=[mapping[v.id] for v in n.inputs], op=n.op, attrs=dict(n.attrs),
                 value=n.value, role=n.role, source_line=n.source_line, module=n.module,
                 subgraphs={k: _rehome(s, target, k) for k, s in n.subgraphs.items()})
        m.outputs = [Value(nid if i == 0 else f"{nid}.{i}", v.spec, m, v.name) for i, v in enumerate(n.outputs)]
        for old, new in zip(n.outputs, m.outputs):
            mapping[old.id] = new
        target._add(m)
    return [mapping[v.id] for v in source.outputs]


def _subgraph(parent: Graph, name: str, specs: list, build) -> Graph:
    """A closed sub-graph with placeholders of these (name, Value-like) specs; `build(sub, args)`
    returns its outputs."""
    sub = parent.subgraph(name)
    args = [sub.placeholder(n, v.shape, v.dtype) for n, v in specs]
    sub.output(build(sub, args))
    return sub


def _while_vjp(g: Graph, node: Node, outs: list, grads: dict, needs: set) -> list:
    """The backward of `while cond(s): s = body(s)` without storing the iterations: count them (n),
    then for k = n-1 .. 0 recompute the state after k iterations from the initial one and apply the
    body's vjp to the running gradient. Quadratic in n, but memory stays that of one state."""
    cond_g, body_g = node.subgraphs["cond"], node.subgraphs["body"]
    init = list(node.inputs)
    i64 = np.dtype(np.int64)
    zero = g.constant(np.int64(0))
    state_specs = [(f"s{i}", v) for i, v in enumerate(init)]
    counter = type("Spec", (), {"shape": (), "dtype": i64})

    # 1. n: the number of iterations the forward ran
    count_cond = _subgraph(g, "count_cond", state_specs + [("i", counter)],
                           lambda sub, a: inline(sub, cond_g, a[:-1]))
    count_body = _subgraph(g, "count_body", state_specs + [("i", counter)],
                           lambda sub, a: inline(sub, body_g, a[:-1]) + [sub.call("add", a[-1], 1)])
    n = g.while_loop(count_cond, count_body, init + [zero])[-1]

    # 2. walk the iterations backwards, carrying (k, gradient of the state, initial state)
    def replay(sub, k, start):
        """The state after k iterations, recomputed from `start` inside `sub`."""
        c = _subgraph(sub, "replay_cond", state_specs + [("j", counter), ("k", counter)],
                      lambda s2, a: [s2.call("lt", a[-2], a[-1])])
        b = _subgraph(sub, "replay_body", state_specs + [("j", counter), ("k", counter)],
                      lambda s2, a: inline(s2, body_g, a[:-2]) + [s2.call("add", a[-2], 1), a[-1]])
        return sub.while_loop(c, b, list(start) + [sub.constant(np.int64(0)), k])[:len(init)]

    body_vjp = vjp_graph(body_g)
    nstate = len(init)
    grad_specs = [(f"grad_s{i}", v) for i, v in enumerate(init)]
    back_cond = _subgraph(g, "grad_cond", [("k", counter)] + grad_specs + state_specs,
                          lambda sub, a: [sub.call("ge", a[0], 0)])

    def back_step(sub, a):
        k, gstate, start = a[0], a[1:1 + nstate], a[1 + nstate:]
        state_k = replay(sub, k, start)
        new_grads = inline(sub, body_vjp, state_k + gstate)
        return [sub.call("sub", k, 1)] + new_grads + list(start)
    back_body = _subgraph(g, "grad_body", [("k", counter)] + grad_specs + state_specs, back_step)
    seeds = [o if o is not None else zeros_like(g, v) for o, v in zip(outs, node.outputs)]
    results = g.while_loop(back_cond, back_body, [g.call("sub", n, 1)] + seeds + init)
    return [_accumulate(g, grads, v, gv, needs) for v, gv in zip(init, results[1:1 + nstate])]


@dataclass
class Joint:
    graph: Graph                 # (inputs..., grad_0..grad_k) -> (outputs..., grads of wrt...)
    num_outputs: int             # how many leading outputs are forward outputs
    wrt: list[str]               # forward placeholder ids whose gradients follow, in order
    forward_ids: set             # node ids of the forward part (the rest is backward)
    forward_of: dict = field(default_factory=dict)   # backward node id -> the forward node it differentiates
    steps: list = field(default_factory=list)         # VjpStep per forward node differentiated, in order


def joint_graph(fwd: Graph, wrt: list[str] | None = None) -> Joint:
    """Forward and backward in one graph. `wrt`: placeholder ids to differentiate (default: all float ones)."""
    g = fwd.copy()
    g.name = fwd.name + ".joint"
    outputs = list(g.outputs)
    g.nodes.remove(g.output_node)
    g.output_node = None
    forward_nodes = list(g.nodes)
    forward_ids = {n.id for n in forward_nodes}
    if wrt is None:
        wrt = [v.id for v in g.inputs if differentiable_value(v)]
    grads: dict = {}
    for i, out in enumerate(outputs):
        seed = g.placeholder(f"grad_{i}", out.shape, out.dtype, role="grad")
        _accumulate(g, grads, out, seed)
    forward_of: dict = {}
    steps: list = []
    _emit_vjps(g, forward_nodes, grads, depends_on(g, set(wrt)), forward_of, steps)
    by_id = {v.id: v for v in g.inputs}
    g.output(outputs + [grads.get(w) or zeros_like(g, by_id[w]) for w in wrt])
    return Joint(g, len(outputs), list(wrt), forward_ids, forward_of, steps)


@dataclass
class Backward:
    graph: Graph                 # (saved..., grad_0..grad_k) -> grads of wrt
    saved: list[str]             # forward value ids the backward reads, in its placeholder order
    wrt: list[str]
    forward_of: dict = field(default_factory=dict)   # backward node id -> the forward node it differentiates
    joint: Joint | None = None                        # the joint graph it was cut from (same backward ids)


def backward_graph(fwd: Graph, wrt: list[str] | None = None) -> Backward:
    """The backward part of the joint graph on its own: forward values it reads become inputs."""
    joint = joint_graph(fwd, wrt)
    jg = joint.graph
    bwd = Graph(fwd.name + ".backward")
    bwd._counter = jg._counter
    mapping: dict[str, Value] = {}
    saved: list[str] = []
    seeds = [n for n in jg.placeholders if n.role == "grad"]
    backward_nodes = [n for n in jg.nodes if n.id not in joint.forward_ids and n.kind not in (PLACEHOLDER, OUTPUT)]

    def source(v: Value) -> Value:
        if v.id not in mapping:   # a forward value (or input) read by backward: saved for it
            saved.append(v.id)
            mapping[v.id] = bwd.placeholder(f"saved {v.id}", v.shape, v.dtype, role="saved")
        return mapping[v.id]

    for s in seeds:
        mapping[s.id] = bwd.placeholder(s.out.name, s.out.shape, s.out.dtype, role="grad")
    for n in backward_nodes:
        m = Node(n.id, n.kind, inputs=[source(v) for v in n.inputs], op=n.op, attrs=dict(n.attrs),
                 value=n.value, role=n.role, source_line=n.source_line, module=n.module, subgraphs=n.subgraphs)
        m.outputs = [Value(v.id, v.spec, m, v.name) for v in n.outputs]
        for v in m.outputs:
            mapping[v.id] = v
        bwd._add(m)
    bwd.output([source(v) for v in jg.outputs[joint.num_outputs:]])
    # placeholders: seeds first, then saved values in first-use order (the _add rule keeps them first)
    return Backward(bwd, saved, joint.wrt, joint.forward_of, joint)


def training_step_graph(fwd: Graph, params: list[str], lr: float, momentum: float = 0.0) -> Graph:
    """One SGD step as a graph: (inputs..., [momentum buffers...]) -> (loss, new params...,
    [new buffers...]). `fwd` returns the scalar loss; `params` are its placeholder ids to train.
    The whole training step, forward, backward and update, is then one static graph."""
    if len(fwd.outputs) != 1 or fwd.outputs[0].shape != ():
        raise ValueError("a training step graph needs a forward graph that returns one scalar loss")
    joint = joint_graph(fwd, wrt=params)
    g = joint.graph
    g.name = fwd.name + ".train_step"
    seed = next(n for n in g.placeholders if n.role == "grad")
    # the loss seeds its own gradient with 1: the seed placeholder becomes a constant
    with g.inserting_before(next(n for n in g.nodes if n.kind != PLACEHOLDER)):
        one = g.constant(np.ones((), seed.out.dtype))
    g.replace_uses(seed.out, one)
    g.remove(seed)
    by_id = {v.id: v for v in g.inputs}
    loss, grads = g.outputs[0], g.outputs[1:]
    new_params, new_buffers = [], []
    for pid, grad in zip(params, grads):
        p = by_id[pid]
        step = grad
        if momentum:
            buf = g.placeholder(f"momentum {p.name or pid}", p.shape, p.dtype, role="input")
            step = g.call("add", g.call("mul", buf, momentum), grad)
            new_buffers.append(step)
        new_params.append(g.call("sub", p, g.call("mul", step, lr)))
    g.output([loss] + new_params + new_buffers)
    return g
