"""The memory plan tells the truth: its peaks equal what the executor's schedule really holds in
memory, counted independently here by walking the executor's steps (engine.codegen.units) with
the sizes of the arrays the reference interpreter computes, and every array the executor
preallocates lives in a buffer the plan placed."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from engine.codegen.executor import build
from engine.codegen.units import plan_units
from engine.ir import Graph
from engine.ir.interpreter import evaluate
from engine.passes import run_pipeline
from engine.passes.memory_planning import plan_memory
from tests.engine.test_passes import check_memory_plan, inputs_for, random_graphs


def true_live_bytes(g: Graph, args) -> tuple[list[int], int]:
    """Bytes held in memory at each step of the fusion schedule (one more for the returned values),
    and the bytes of all those arrays together (the peak without reuse):
    every array a BLAS call, a kernel or a library op writes, alive from its step to its last
    reader's; a view holds none of its own but keeps its source alive."""
    env = evaluate(g, args)
    step_of = {nid: i for i, grp in enumerate(g.fusion_groups) for nid in grp.node_ids}
    inputs = {n.id for n in g.nodes if n.kind in ("placeholder", "constant")}
    source: dict[str, str] = {}
    born: dict[str, int] = {}
    last: dict[str, int] = {}
    for unit in plan_units(g, {n.id: n for n in g.nodes}):
        step = max(step_of[nid] for nid in unit.node_ids)
        for v in unit.inputs:
            root = source.get(v, v)
            if root in born:
                last[root] = max(last[root], step)
        for v in unit.outputs:
            if unit.kind == "view":
                src = unit.inputs[0]
                source[v] = source.get(src, src)
            elif v not in inputs:
                born[v], last[v] = step, step
    steps = len(g.fusion_groups)
    for v in g.outputs:
        root = source.get(v.id, v.id)
        if root in born:
            last[root] = steps
    size = {v: np.asarray(env[v]).nbytes for v in born}
    return [sum(size[v] for v in born if born[v] <= t <= last[v]) for t in range(steps + 1)], sum(size.values())


def check_truthful(g: Graph):
    args = inputs_for(g)
    optimized = run_pipeline(g, snapshots=False).graph
    plan = optimized.memory_plan
    check_memory_plan(optimized)
    live, total = true_live_bytes(optimized, args)
    env = evaluate(optimized, args)
    assert plan.live_peak_bytes == max(live)
    assert plan.peak_bytes_before == total
    for iv in plan.intervals:
        assert iv.bytes == np.asarray(env[iv.value]).nbytes
    compiled = build(optimized, backend="numpy")
    spec = compiled.current
    placed = plan.assignment()
    unplaced = [v for v in spec.arrays if v not in placed]
    assert not unplaced, f"the executor allocates {unplaced} outside the plan"
    # what the executor holds: its preallocated buffers and the fresh output arrays
    assert spec.memory["bytes"] + sum(spec.fresh_bytes.values()) <= plan.peak_bytes_after
    return plan


def product_with_epilogue(op="matmul"):
    g = Graph(op)
    x = g.placeholder("x", (8, 16))
    w = g.placeholder("w", (16, 32), role="param")
    if op == "addmm":
        h = g.call("addmm", g.placeholder("b", (32,), role="param"), x, w)
    else:
        h = g.call("matmul", x, w)
    g.output(g.call("sum", g.call("relu", g.call("mul", h, 2.0))))
    return g


def conv_with_epilogue():
    g = Graph("conv")
    x = g.placeholder("x", (1, 2, 6, 6))
    w = g.placeholder("w", (3, 2, 3, 3), role="param")
    g.output(g.call("sum", g.call("relu", g.call("mul", g.call("conv2d", x, w, stride=1, padding=1), 2.0))))
    return g


def two_layers():
    g = Graph("mlp2")
    x = g.placeholder("x", (16, 32))
    h = x
    for i in range(3):
        w = g.placeholder(f"w{i}", (32, 32), role="param")
        b = g.placeholder(f"b{i}", (32,), role="param")
        h = g.call("tanh", g.call("addmm", b, h, w))
    g.output(g.call("mean", g.call("transpose", h, dim0=0, dim1=1)))
    return g


@pytest.mark.parametrize("op", ["matmul", "addmm"])
def test_a_product_read_by_its_epilogue_is_a_planned_buffer(op):
    g = product_with_epilogue(op)
    plan = check_truthful(g)
    product = next(n.id for n in g.nodes if n.op == op)
    interval = next(iv for iv in plan.intervals if iv.value == product)
    assert interval.bytes == 8 * 32 * 4 and interval.start == interval.end == 0
    # the product and the epilogue's result are in memory at once: the true peak holds both
    assert plan.live_peak_bytes >= 2 * 8 * 32 * 4


def test_a_convolution_read_by_its_epilogue_is_counted():
    g = conv_with_epilogue()
    plan = check_truthful(g)
    conv = next(n.id for n in g.nodes if n.op == "conv2d")
    assert any(iv.value == conv for iv in plan.intervals)


def test_layers_reuse_buffers_and_a_view_holds_no_memory():
    plan = check_truthful(two_layers())
    assert plan.peak_bytes_after < plan.peak_bytes_before
    g = two_layers()
    transpose = next(n.id for n in g.nodes if n.op == "transpose")
    assert transpose not in {iv.value for iv in plan.intervals}


def test_a_graph_output_never_takes_a_used_buffer():
    g = Graph("chain")
    v = g.placeholder("x", (64,))
    for _ in range(3):
        v = g.call("sum_to_size", g.call("expand", g.call("exp", v), shape=(2, 64)), shape=(64,))
    g.output(v)
    plan = plan_memory(run_pipeline(g, snapshots=False).graph)
    out_buffer = plan.assignment()[v.id]
    assert next(b for b in plan.buffers if b.id == out_buffer).values == [v.id]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_plans_are_truthful(g):
    with np.errstate(all="ignore"):
        check_truthful(g)
