"""The fusion pass: one loop per elementwise DAG of one iteration space (fan-out inside, chains that
meet, siblings reading the same input), reductions ending a loop, extern calls with an elementwise
epilogue, no cycle between groups, a reason per fused node, and a plan the executor runs as is."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import engine
from engine.capture.tracing import trace_graph
from engine.codegen import cc
from engine.codegen.executor import build
from engine.ir.units import plan_units
from engine.ir import Graph, interpreter
from engine.ir.schedule import ELEMENTWISE_GROUP, EXTERN_GROUP, REDUCTION_GROUP
from engine.passes import run_pipeline
from engine.passes.fusion import fusion, partition
from engine.record.snapshots import pass_snapshots
from tests.engine.passes.test_passes import check_preserved, random_graphs


def tanh_gelu_expression(x):
    return 0.5 * x * (1 + (0.79788456 * (x + 0.044715 * x ** 3)).tanh())


def fusion_snapshot(result):
    return next(s for s in pass_snapshots(result) if s["name"] == "fusion")


def kernel_units(graph):
    """The executor's steps for the plan (read-only use of engine.codegen)."""
    return plan_units(graph, {n.id: n for n in graph.nodes})


def test_traced_tanh_gelu_expression_is_one_loop_with_a_reason_per_node():
    graph, *_ = trace_graph(tanh_gelu_expression, (engine.randn(4, 8),))
    result = check_preserved(graph)
    (group,) = result.graph.fusion_groups
    ops = [n.op for n in graph.nodes if n.kind == "call"]
    assert group.kind == ELEMENTWISE_GROUP and len(group.node_ids) == len(ops) == 8
    assert group.outputs == [graph.outputs[0].id]
    notes = {n["node"]: n for n in fusion_snapshot(result)["notes"]}
    assert set(notes) == set(group.node_ids)
    assert all(n["reason"].startswith(f"fused into {group.name}: elementwise") for n in notes.values())
    x = graph.inputs[0].id
    (cube,) = [n for n in graph.nodes if n.op == "pow_scalar"]
    assert notes[cube.id]["reason"].endswith(f"(which also reads {x})")   # x**3 joins 0.5*x's loop
    final = graph.node_by_id(graph.outputs[0].id)
    assert notes[final.id]["reason"].endswith(f": elementwise, same shape as {final.inputs[0].id}")
    # the executor has nothing left to merge: the one group is its one kernel
    (unit,) = kernel_units(result.graph)
    assert unit.kind == "kernel" and unit.node_ids == group.node_ids


def test_two_chains_that_meet_merge_their_loops():
    g = Graph()
    x = g.placeholder("x", (4, 8))
    y = g.placeholder("y", (4, 8))
    a = g.call("exp", g.call("mul", x, 2.0))              # loop over x
    b = g.call("tanh", g.call("add", y, 1.0))             # loop over y: no input shared with a
    g.output(g.call("mul", b, a))
    result = check_preserved(g)
    (group,) = result.graph.fusion_groups
    reasons = [n["reason"] for n in fusion_snapshot(result)["notes"]]
    assert any(r.endswith("2 loops merge into one") for r in reasons), reasons


def test_gelu_op_forward_and_backward_is_one_loop():
    for approximate in ("tanh", "none"):
        from engine.autodiff import joint_graph
        g = Graph()
        x = g.placeholder("x", (4, 8))
        g.output(g.call("gelu", x, approximate=approximate))
        (group,) = check_preserved(g).graph.fusion_groups      # the op alone
        assert group.kind == ELEMENTWISE_GROUP
        joint = joint_graph(g).graph                          # gelu and its vjp DAG, both reading x
        result = check_preserved(joint)
        (group,) = result.graph.fusion_groups
        assert sorted(group.outputs) == sorted(v.id for v in joint.outputs)
        assert len(kernel_units(result.graph)) == 1


def test_gelu_after_a_matmul_is_its_epilogue():
    g = Graph()
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    b = g.placeholder("b", (8,), role="param")
    h = g.call("addmm", b, x, w)
    g.output(g.call("mul", g.call("mul", h, 0.5), g.call("add", g.call("tanh", g.call(
        "mul", g.call("add", h, g.call("mul", g.call("pow_scalar", h, exponent=3), 0.044715)), 0.79788456)), 1.0)))
    result = check_preserved(g)
    (group,) = result.graph.fusion_groups
    assert group.kind == EXTERN_GROUP and group.name.startswith("fused_addmm_")
    reasons = [n["reason"] for n in fusion_snapshot(result)["notes"]]
    assert any("epilogue of addmm" in r for r in reasons)
    assert [u.kind for u in kernel_units(result.graph)] == ["matmul", "kernel"]   # BLAS, then one loop


def test_a_loop_read_only_by_an_epilogue_moves_into_it():
    g = Graph()
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    a = g.placeholder("a", (4, 8))
    b = g.placeholder("b", (4, 8))
    s = g.call("tanh", g.call("add", a, b))                         # a loop that does not feed the matmul
    g.output(g.call("mul", g.call("relu", g.call("matmul", x, w)), s))
    result = check_preserved(g)
    (group,) = result.graph.fusion_groups
    matmul = next(n for n in g.nodes if n.op == "matmul")
    assert group.kind == EXTERN_GROUP and group.node_ids[0] == matmul.id          # the call, then the loop
    assert [u.kind for u in kernel_units(result.graph)] == ["matmul", "kernel"]
    reasons = [n["reason"] for n in fusion_snapshot(result)["notes"]]
    assert any("moves into it" in r for r in reasons), reasons


def test_a_loop_feeding_the_matmul_stays_out_of_its_epilogue():
    g = Graph()
    x = g.placeholder("x", (4, 4))
    w = g.placeholder("w", (4, 4), role="param")
    h = g.call("relu", g.call("mul", x, 2.0))                       # feeds the matmul and the residual add
    g.output(g.call("add", g.call("matmul", h, w), h))
    groups = check_preserved(g).graph.fusion_groups
    assert [(grp.kind, len(grp.node_ids)) for grp in groups] == [(ELEMENTWISE_GROUP, 2), (EXTERN_GROUP, 2)]


def test_a_reduction_of_an_epilogue_ends_its_loop():
    """relu(x @ w).sum(1): BLAS, then one loop computing relu and summing it (relu never stored)."""
    g = Graph()
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    r = g.call("relu", g.call("matmul", x, w))
    s = g.call("sum", r, dim=(1,), keepdim=False)
    g.output(s)
    result = check_preserved(g)
    (group,) = result.graph.fusion_groups
    assert group.kind == EXTERN_GROUP and group.node_ids[-1] == s.id
    units = kernel_units(result.graph)
    assert [u.kind for u in units] == ["matmul", "kernel"]
    assert units[1].node_ids == [r.id, s.id] and units[1].outputs == [s.id]
    notes = {n["node"]: n["reason"] for n in fusion_snapshot(result)["notes"]}
    assert "in the epilogue loop of matmul" in notes[s.id]


def test_a_reduction_of_the_raw_product_stays_a_kernel_of_its_own():
    """sum(x @ w) reads what BLAS wrote either way: it does not close the call's epilogue."""
    g = Graph()
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    p = g.call("matmul", x, w)
    g.output(g.call("sum", p, dim=(0,), keepdim=False), g.call("relu", p))
    groups = check_preserved(g).graph.fusion_groups
    assert sorted((grp.kind, len(grp.node_ids)) for grp in groups) == [(EXTERN_GROUP, 2), (REDUCTION_GROUP, 1)]


def test_conv2d_takes_an_elementwise_epilogue():
    g = Graph()
    x = g.placeholder("x", (1, 2, 6, 6))
    w = g.placeholder("w", (3, 2, 3, 3), role="param")
    g.output(g.call("relu", g.call("mul", g.call("conv2d", x, w, stride=1, padding=1), 2.0)))
    (group,) = check_preserved(g).graph.fusion_groups
    assert group.kind == EXTERN_GROUP and group.name.startswith("fused_conv2d_")


def test_reduction_ends_the_loop_and_a_later_op_starts_another():
    g = Graph()
    x = g.placeholder("x", (4, 8))
    e = g.call("exp", x)
    s = g.call("sum", e, dim=(1,), keepdim=True)
    g.output(g.call("div", e, g.call("expand", s, shape=(4, 8))))
    groups = check_preserved(g).graph.fusion_groups
    assert [grp.kind for grp in groups] == [REDUCTION_GROUP, ELEMENTWISE_GROUP]
    assert set(groups[1].inputs) == {e.id, s.id} and groups[0].outputs == [e.id, s.id]


def test_loops_do_not_merge_across_a_group_between_them():
    g = Graph()
    x = g.placeholder("x", (3, 3))
    a = g.call("exp", x)                                  # loop A
    t = g.call("transpose", a, dim0=0, dim1=1)            # its own group, reads A
    b = g.call("tanh", t)                                 # loop B, after the transpose
    g.output(g.call("add", b, a))                         # reads A and B: merging them would be a cycle
    result = check_preserved(g)
    group_of = {nid: grp.name for grp in result.graph.fusion_groups for nid in grp.node_ids}
    assert group_of[a.id] != group_of[b.id]
    assert len(result.graph.fusion_groups) == 3


def test_a_loop_that_reads_another_group_makes_all_its_values_depend_on_it():
    """u = exp(x) starts loop G; n = u * expand(tanh(w)) joins G, so G as a whole (u too) runs after
    tanh(w)'s loop H. The reduction of u ends G; m = tanh(w) + sum(u) then reads G and must not join
    H: G would run after H and H after G (a cycle, when dependencies were tracked per value)."""
    g = Graph()
    x = g.placeholder("x", (4, 3))
    w = g.placeholder("w", (3,))
    hw = g.call("tanh", w)
    u = g.call("exp", x)
    n = g.call("mul", u, g.call("expand", hw, shape=(4, 3)))
    r = g.call("sum", u, dim=(0,), keepdim=False)
    m = g.call("add", hw, r)
    g.output(n, m)
    result = check_preserved(g)
    group_of = {nid: grp for grp in result.graph.fusion_groups for nid in grp.node_ids}
    assert group_of[m.id] is not group_of[hw.id]
    assert group_of[u.id] is group_of[n.id] is group_of[r.id]     # the loop itself still fuses


def tangled_graph(rng) -> Graph:
    """A random graph of loops over three shapes tied by broadcasts, reductions, transposes and
    products: many groups that read each other, loops that merge later (denser than random_graphs)."""
    g = Graph("tangled")
    by_shape = {(4, 3): [g.placeholder("x", (4, 3))], (3,): [g.placeholder("w", (3,))], (3, 4): [], (4, 4): []}
    for _ in range(40):
        shape = list(by_shape)[rng.integers(4)]
        if not by_shape[shape]:
            continue
        a = by_shape[shape][rng.integers(len(by_shape[shape]))]
        b = by_shape[shape][rng.integers(len(by_shape[shape]))]
        choice = rng.integers(6)
        if choice == 0:
            by_shape[shape].append(g.call(["tanh", "exp", "neg"][rng.integers(3)], a))
        elif choice == 1:
            by_shape[shape].append(g.call(["mul", "add"][rng.integers(2)], a, b))
        elif choice == 2 and shape == (3,):
            by_shape[(4, 3)].append(g.call("expand", a, shape=(4, 3)))
        elif choice == 3 and shape == (4, 3):
            by_shape[(3,)].append(g.call("sum", a, dim=(0,), keepdim=False))
        elif choice == 4 and len(shape) == 2 and shape[0] != shape[1]:
            by_shape[shape[::-1]].append(g.call("transpose", a, dim0=0, dim1=1))
        elif choice == 5 and shape == (4, 3) and by_shape[(3, 4)]:
            by_shape[(4, 4)].append(g.call("matmul", a, by_shape[(3, 4)][-1]))
    made = [v for values in by_shape.values() for v in values if v.producer is not None and v.producer.kind == "call"]
    g.output(made[-3:] if made else [g.call("tanh", by_shape[(3,)][0])])
    return g


def test_the_dependencies_kept_during_the_walk_are_those_of_the_final_groups():
    """The partition updates each group's dependencies as nodes join and groups merge; they must
    equal the ones found afterwards by following every node's inputs between the final groups,
    and the groups must have an order (fusion raises on a cycle)."""
    rng = np.random.default_rng(7)
    for _ in range(150):
        g = tangled_graph(rng)
        part = partition(g)
        reads = {id(grp): set() for grp in part.groups}
        for grp in part.groups:
            for n in grp.nodes:
                reads[id(grp)] |= {id(part.group_of[v.producer.id]) for v in n.inputs
                                   if v.producer is not None and v.producer.id in part.group_of}
        for grp in part.groups:
            found, stack = set(), [i for i in reads[id(grp)] if i != id(grp)]
            while stack:
                i = stack.pop()
                if i not in found:
                    found.add(i)
                    stack.extend(reads[i])
            kept = {id(other) for other in part.groups if other.bits & grp.ancestors}
            assert kept - {id(grp)} == found - {id(grp)}
        fusion(g)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs(with_matmul=False))
def test_random_graphs_leave_the_executor_nothing_to_merge(g):
    """Without extern calls, every loop group is exactly one executor kernel."""
    with np.errstate(all="ignore"):
        result = run_pipeline(g)
    loops = sorted(grp.node_ids for grp in result.graph.fusion_groups if grp.kind != EXTERN_GROUP)
    kernels = sorted(u.node_ids for u in kernel_units(result.graph) if u.kind == "kernel")
    assert kernels == loops


@pytest.fixture(scope="module")
def kernel_cache(tmp_path_factory):
    mp = pytest.MonkeyPatch()
    mp.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path_factory.mktemp("kernels")))
    yield
    mp.undo()


@pytest.mark.parametrize("backend", ["c", "numpy"] if cc.have_compiler() else ["numpy"])
def test_the_executor_runs_the_plans_of_random_graphs_with_products(backend, kernel_cache):
    """Epilogues that take in loops and reductions, compiled and run (read-only use of codegen)."""
    @settings(max_examples=12 if backend == "c" else 30, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(random_graphs(with_matmul=True))
    def check(g):
        args = [np.random.default_rng(0).standard_normal(v.shape).astype(v.dtype) for v in g.inputs]
        with np.errstate(all="ignore"):
            want = interpreter.run(g, args)
            got = build(run_pipeline(g).graph, backend=backend)(*args)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    check()
