"""Backprop steps of a captured graph's backward, as the run record's `steps`, so the stepper walks
a static backward as it walks an eager one: one step per forward node differentiated, in the order
graph autodiff differentiated them (the gradient it received × its rule = the gradients it sent
on), and an AccumulateGrad step for each differentiated input once its gradient is complete.

The values are those of the captured call the forward nodes show, each output seeded with a
gradient of ones (`loss.backward()` for a scalar loss, `out.sum().backward()` otherwise). A step
names the backward nodes its vjp made (`nodes`; `node` is the last, the one the stepper centres
on); a vjp that only passes its gradient on (`add`'s) makes none, and its `node` is null.
"""
from __future__ import annotations

import json

import numpy as np

from engine.capture.trail import replayed
from engine.ir.graph import CALL, COND, PLACEHOLDER, WHILE, Graph
from engine.ir.interpreter import evaluate
from engine.ops.registry import OPS
from engine.record.values import TensorMemo

MAX_STEPS = 1000                 # a larger backward is drawn, but not stepped through
MAX_STEPS_BYTES = 1_500_000      # their share of the run record (the sandbox drops whole graphs past its budget)
# A while_loop's backward replays its iterations (quadratic in their number: engine.autodiff._while_vjp),
# so a graph whose loops ran longer is not evaluated just to show its steps.
MAX_LOOP_ITERATIONS = 64
_CONTROL_RULES = {COND: "grad = the vjp of the branch that ran (the backward cond takes the same branch)",
                  "while_loop": "grad = the body's vjp applied once per iteration, last iteration first"}


def backprop_steps(forward: Graph, backward, inputs: list) -> list[dict]:
    """Steps of `backward` (engine.autodiff.Backward of `forward`) for these input arrays
    (placeholder order); [] when there are too many to show; StepsTooLarge when their values would
    take too much of the run record."""
    joint = backward.joint
    if joint is None or len(joint.steps) > MAX_STEPS or not _loops_are_short(forward, inputs):
        return []
    seeds = [np.ones(tuple(v.shape), v.dtype) for v in forward.outputs]
    env = evaluate(joint.graph, list(inputs) + seeds)
    nodes_of: dict[str, list] = {}
    for n in backward.graph.nodes:
        if n.id in backward.forward_of:
            nodes_of.setdefault(backward.forward_of[n.id], []).append(n.id)
    by_id = {n.id: n for n in forward.nodes}
    wrt = dict(zip(joint.wrt, joint.graph.outputs[joint.num_outputs:]))   # input id -> its gradient
    # an input's gradient is complete after the last step that sends it one: its AccumulateGrad goes there
    last_sender: dict[str, int] = {}
    for i, step in enumerate(joint.steps):
        for v, sent in zip(by_id[step.forward].inputs, step.grads_out):
            if sent is not None and v.id in wrt:
                last_sender[v.id] = i

    tensor_json = TensorMemo()          # a value sent on is the next step's input

    def value(vid):
        return tensor_json(env[vid]) if vid is not None and vid in env else None

    def target(v) -> str | None:
        """The backward node the gradient of forward value `v` goes to next."""
        producer = v.producer
        if producer is None or producer.kind == PLACEHOLDER:
            return "output" if v.id in wrt else None      # a differentiated input: returned by the graph
        made = nodes_of.get(producer.id)
        return made[-1] if made else None

    steps: list[dict] = []
    accumulate_after: dict[int, list] = {}
    for leaf, i in last_sender.items():
        accumulate_after.setdefault(i, []).append(leaf)
    for i, step in enumerate(joint.steps):
        node = by_id[step.forward]
        made = nodes_of.get(node.id, [])
        steps.append({"index": len(steps), "node": made[-1] if made else None, "nodes": made,
                      "forward_node": node.id, "op": _step_name(node), "forward_op": node.op or node.kind,
                      "rule": OPS[node.op].rule if node.kind == CALL else _CONTROL_RULES.get(node.kind, ""),
                      "grad_in": [value(g) for g in step.grads_in],
                      "grad_out": [value(g) for g in step.grads_out],
                      "targets": [target(v) for v in node.inputs]})
        for leaf in accumulate_after.get(i, []):
            steps.append({"index": len(steps), "node": "output", "nodes": ["output"], "forward_node": leaf,
                          "op": "AccumulateGrad", "rule": "leaf.grad += grad",
                          "grad_in": [value(wrt[leaf].id)], "grad_out": [], "targets": []})
    size = len(json.dumps(steps, default=str))
    if size > MAX_STEPS_BYTES:
        raise StepsTooLarge(f"{len(steps)} steps would take {size / 1e6:.1f} MB of the run record "
                            f"(at most {MAX_STEPS_BYTES / 1e6:.1f} MB)")
    return steps


class StepsTooLarge(Exception):
    """The steps' gradients would crowd the run record's budget: the record says so instead."""


def _loops_are_short(forward: Graph, inputs: list) -> bool:
    """No loop inside a sub-graph, and every top-level while_loop ran at most MAX_LOOP_ITERATIONS
    times on these inputs."""
    if any(_has_loop(s) for n in forward.nodes for s in n.subgraphs.values()):
        return False
    if not any(n.kind == WHILE for n in forward.nodes):
        return True
    return all(b["iterations"] <= MAX_LOOP_ITERATIONS for b in replayed(forward, inputs).branches
               if b["kind"] == "while")


def _has_loop(graph: Graph) -> bool:
    return any(n.kind == WHILE or any(_has_loop(s) for s in n.subgraphs.values()) for n in graph.nodes)


def _step_name(node) -> str:
    """PyTorch's name for the backward of this node (MulBackward0...), as an eager step shows it."""
    if node.kind != CALL:
        return f"{node.kind}_backward"
    op = OPS[node.op]
    try:
        return op.grad_fn_name(*node.inputs, **node.attrs)
    except Exception:  # noqa: BLE001 - a name that needs an eager tensor: the op's own name then
        return f"{node.op}_backward"
