"""The pass pipeline: every pass preserves the interpreter's outputs (hand-written corpus and random
graphs from hypothesis), the verifier holds after every pass, and each pass says what it did."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine.ir import Graph, run, verify
from engine.ir.graph import CALL
from engine.passes import DEFAULT_PASSES, run_pipeline
from engine.passes.memory_planning import plan_memory
from engine.passes.pipeline import outputs_equal
from engine.record.snapshots import pass_snapshots

RNG = np.random.default_rng(0)


def inputs_for(g: Graph):
    out = []
    for v in g.inputs:
        if v.dtype.kind == "f":
            out.append(RNG.standard_normal(v.shape).astype(v.dtype))
        elif v.dtype.kind == "b":
            out.append(RNG.random(v.shape) > 0.5)
        else:
            out.append(RNG.integers(-3, 4, v.shape).astype(v.dtype))
    return out


def check_preserved(g: Graph):
    """Run the pipeline; after every pass the graph verifies and computes the same outputs."""
    verify(g)
    args = inputs_for(g)
    want = run(g, args)
    result = run_pipeline(g)
    current = g
    for snap, p in zip(pass_snapshots(result), DEFAULT_PASSES):
        current = p(current).graph
        verify(current)
        got = run(current, args)
        assert outputs_equal(want, got), f"{snap['name']} changed the outputs"
    assert outputs_equal(want, run(result.graph, args))
    check_fusion_plan(result.graph)
    check_memory_plan(result.graph)
    return result


def check_fusion_plan(g: Graph):
    groups = g.fusion_groups
    ids = [n.id for n in g.nodes if n.kind in ("call", "cond", "while_loop")]
    grouped = [nid for grp in groups for nid in grp.node_ids]
    assert sorted(grouped) == sorted(ids), "every op node is in exactly one group"
    position = {n.id: i for i, n in enumerate(g.nodes)}
    produced_before: set = {n.id for n in g.nodes if n.kind in ("placeholder", "constant")}
    users = g.users()
    for grp in groups:
        assert [position[i] for i in grp.node_ids] == sorted(position[i] for i in grp.node_ids)
        members = set(grp.node_ids)
        for vid in grp.inputs:
            assert vid in produced_before, f"{grp.name} reads {vid} before it is produced"
        for nid in grp.node_ids:
            node = g.node_by_id(nid)
            outside = any(u.id not in members for u in users.get(nid, []))
            assert (nid in grp.outputs) == (outside or nid in {v.id for v in g.outputs})
        produced_before |= members


def check_memory_plan(g: Graph):
    plan = g.memory_plan
    assert plan is not None
    by_buffer: dict = {}
    for iv in plan.intervals:
        by_buffer.setdefault(iv.buffer, []).append(iv)
    for ivs in by_buffer.values():
        ivs.sort(key=lambda i: i.start)
        for a, b in zip(ivs, ivs[1:]):
            assert a.end < b.start, f"{a.value} and {b.value} share a buffer while both live"
    sizes = {b.id: b.bytes for b in plan.buffers}
    for iv in plan.intervals:
        assert iv.bytes <= sizes[iv.buffer]
    assert plan.live_peak_bytes <= plan.peak_bytes_after <= plan.peak_bytes_before


# ---- a hand-written corpus ----------------------------------------------------------------------

def mlp_graph():
    g = Graph("mlp")
    x = g.placeholder("x", (4, 3))
    w = g.placeholder("w", (3, 5), role="param")
    b = g.placeholder("b", (5,), role="param")
    h = g.call("tanh", g.call("addmm", b, x, w))
    g.output(g.call("mean", g.call("mul", h, h)))
    return g


def redundant_graph():
    g = Graph("redundant")
    x = g.placeholder("x", (3, 4))
    two = g.call("add", g.constant(np.float32(1)), g.constant(np.float32(1)))   # folds to 2
    a = g.call("mul", g.call("mul", x, 1.0), two)        # x*1 -> x
    b = g.call("mul", x, two)                            # same as a after simplification: CSE
    c = g.call("neg", g.call("neg", g.call("add", a, b)))
    t = g.call("transpose", g.call("transpose", c, dim0=0, dim1=1), dim0=1, dim1=0)
    r = g.call("reshape", g.call("reshape", t, shape=(12,)), shape=(4, 3))
    g.call("exp", x)                                     # dead
    g.output(g.call("sum", r, dim=(1,), keepdim=False), g.call("add", t, 0.0))
    return g


def cond_graph():
    g = Graph("branchy")
    x = g.placeholder("x", (3,))
    p = g.call("gt", g.call("sum", x), 0.0)
    t, e = g.subgraph("then"), g.subgraph("else")
    a = t.placeholder("x", (3,))
    t.output(t.call("mul", t.call("mul", a, 1.0), a))
    b = e.placeholder("x", (3,))
    e.output(e.call("neg", e.call("neg", e.call("exp", b))))
    (r,) = g.cond(p, t, e, [x])
    g.output(g.call("tanh", r))
    return g


def constant_cond_graph():
    g = Graph("static_branch")
    x = g.placeholder("x", (2,))
    t, e = g.subgraph("then"), g.subgraph("else")
    t.output(t.call("add", t.placeholder("x", (2,)), 1.0))
    e.output(e.call("sub", e.placeholder("x", (2,)), 1.0))
    (r,) = g.cond(g.constant(np.bool_(True)), t, e, [x])
    g.output(r)
    return g


def int_graph():
    g = Graph("ints")
    x = g.placeholder("x", (4,), np.int64)
    g.output(g.call("add", g.call("mul", x, 0), g.call("mul", x, 1)))
    return g


@pytest.mark.parametrize("make", [mlp_graph, redundant_graph, cond_graph, constant_cond_graph, int_graph])
def test_corpus_outputs_preserved_by_every_pass(make):
    check_preserved(make())


def test_redundant_graph_rewrites_with_reasons():
    result = check_preserved(redundant_graph())
    snaps = {s["name"]: s for s in pass_snapshots(result)}
    assert [s["name"] for s in pass_snapshots(result)] == ["constant_folding", "algebraic_simplification", "cse",
                                                    "dce", "fusion", "memory_planning"]
    assert {"node": "%3", "reason": "folded: all inputs constant", "key": "pass_note.folded_constant",
            "params": {}} in snaps["constant_folding"]["notes"]
    assert "%3" in snaps["constant_folding"]["changed"]
    reasons = {n["reason"] for n in snaps["algebraic_simplification"]["notes"]}
    assert {"x*1 -> x", "neg(neg(x)) -> x", "transpose(transpose(x)) -> x", "x+0 -> x",
            "reshape(reshape(x)) -> one reshape"} <= reasons
    assert any(n["reason"].startswith("CSE: same as %") for n in snaps["cse"]["notes"])
    assert snaps["cse"]["removed"]
    assert all(n["reason"] == "DCE: no users" for n in snaps["dce"]["notes"]) and snaps["dce"]["removed"]
    assert snaps["dce"]["stats"]["nodes"] < snaps["constant_folding"]["stats"]["nodes"]
    fused = snaps["fusion"]
    assert fused["stats"]["kernels"] < snaps["dce"]["stats"]["kernels"]
    assert any(g["name"].startswith("fused_") for g in fused["groups"])
    for snap in pass_snapshots(result):
        assert {"name", "ir", "graph", "added", "removed", "changed", "notes", "stats"} <= set(snap)
        assert {"nodes", "kernels", "peak_bytes"} <= set(snap["stats"])
    assert set(snaps["memory_planning"]["memory"]) >= {"buffers", "intervals", "peak_bytes_before", "peak_bytes_after"}


def test_constant_predicate_inlines_the_branch():
    result = check_preserved(constant_cond_graph())
    assert not any(n.kind == "cond" for n in result.graph.nodes)
    assert "inlined the then branch" in pass_snapshots(result)[0]["notes"][0]["reason"]


def test_float_times_zero_is_not_simplified():
    g = Graph()
    x = g.placeholder("x", (2,))
    g.output(g.call("mul", x, 0.0))
    result = run_pipeline(g)
    nan_in = [np.array([np.nan, np.inf], np.float32)]
    assert np.isnan(run(result.graph, nan_in)[0]).all()      # NaN*0 and inf*0 stay NaN


def test_fusion_names_elementwise_chain_with_trailing_reduction():
    g = Graph()
    x = g.placeholder("x", (8, 16))
    y = g.placeholder("y", (16,))
    z = g.call("tanh", g.call("add", g.call("mul", x, 2.0), g.call("expand", y, shape=(8, 16))))
    g.output(g.call("sum", z, dim=(1,), keepdim=False))
    result = check_preserved(g)
    (group,) = result.graph.fusion_groups
    assert group.name == "fused_expand_mul_add_tanh_etc_0" or group.name.startswith("fused_")
    assert group.kind == "reduction" and len(group.node_ids) == 5
    assert group.outputs == [g.outputs[0].id]


def test_matmul_epilogue_is_one_extern_group():
    result = check_preserved(mlp_graph())
    first = result.graph.fusion_groups[0]
    assert first.kind == "extern" and first.name == "fused_addmm_tanh_mul_mean_0"


def test_memory_planning_reuses_buffers_along_a_chain():
    g = Graph()
    v = g.placeholder("x", (64,))
    for i in range(6):
        v = g.call("sum_to_size", g.call("expand", g.call("exp", v), shape=(2, 64)), shape=(64,))
    g.output(v)
    plan = plan_memory(g)
    assert len(plan.buffers) < len(plan.intervals)
    assert plan.peak_bytes_after < plan.peak_bytes_before
    check_memory_plan(run_pipeline(g).graph)


# ---- random graphs -------------------------------------------------------------------------------

SHAPES = [(3, 4), (4,), (1, 4), (3, 1), (), (3, 3)]
UNARY = ["neg", "exp", "tanh", "relu"]
BINARY = ["add", "sub", "mul", "div", "maximum"]


@st.composite
def random_graphs(draw, with_matmul: bool = True):
    """Random DAGs of elementwise ops, reductions, views and duplicates (food for CSE), and with
    `with_matmul` also products whose results feed epilogues and reductions."""
    g = Graph("random")
    values = [g.placeholder(f"x{i}", s) for i, s in enumerate(draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3)))]
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "const", "reduce", "move", "dup"]
                                    + (["matmul"] if with_matmul else [])))
        a = draw(st.sampled_from(values))
        try:
            if kind == "unary":
                values.append(g.call(draw(st.sampled_from(UNARY)), a))
            elif kind == "binary":
                b = draw(st.sampled_from(values))
                values.append(g.call(draw(st.sampled_from(BINARY)), a, b))
            elif kind == "const":
                c = draw(st.sampled_from([0.0, 1.0, 2.0]))
                op = draw(st.sampled_from(["add", "mul", "sub"]))
                values.append(g.call(op, a, g.constant(np.float32(c))))
            elif kind == "reduce":
                dim = draw(st.sampled_from([None, 0, -1]))
                if a.ndim == 0 and dim is not None:
                    continue
                values.append(g.call(draw(st.sampled_from(["sum", "mean"])), a,
                                     dim=None if dim is None else (dim,), keepdim=draw(st.booleans())))
            elif kind == "move":
                if a.ndim == 2:
                    t = g.call("transpose", a, dim0=0, dim1=1)
                    values.append(g.call("transpose", t, dim0=0, dim1=1) if draw(st.booleans()) else t)
                else:
                    values.append(g.call("reshape", a, shape=(int(np.prod(a.shape)),)))
            elif kind == "matmul":
                if a.ndim != 2:
                    continue
                product = g.call("matmul", a, g.call("transpose", a, dim0=0, dim1=1))     # a @ a.T
                values.append(product)
                if draw(st.booleans()):           # an epilogue to grow (or a loop to move into it)
                    values.append(g.call(draw(st.sampled_from(UNARY)), product))
            else:   # the same op twice: food for CSE
                n = a.producer
                if n.kind == CALL:
                    values.append(g.call(n.op, *n.inputs, **n.attrs))
        except (ValueError, RuntimeError, IndexError):
            continue    # shapes that do not broadcast: draw again
    # the last value is always returned, so the chain that built it stays alive past DCE
    outs = [values[-1]] + draw(st.lists(st.sampled_from(values), min_size=0, max_size=1))
    g.output(outs)
    return g


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_outputs_preserved(g):
    with np.errstate(all="ignore"):
        check_preserved(g)


def test_dce_drops_unused_cond_results_and_operands():
    g = Graph()
    x = g.placeholder("x", (3,))
    y = g.placeholder("y", (3,))
    t, e = g.subgraph("then"), g.subgraph("else")
    tx, ty = t.placeholder("x", (3,)), t.placeholder("y", (3,))
    t.output(t.call("exp", tx), t.call("tanh", ty))
    ex, ey = e.placeholder("x", (3,)), e.placeholder("y", (3,))
    e.output(e.call("neg", ex), e.call("relu", ey))
    first, second = g.cond(g.call("gt", g.call("sum", x), 0.0), t, e, [x, y])
    g.output(first)                       # `second` (the only use of y) is dead
    result = check_preserved(g)
    snap = next(s for s in pass_snapshots(result) if s["name"] == "dce")
    reasons = [n["reason"] for n in snap["notes"]]
    assert "DCE: cond result with no users" in reasons
    assert "DCE: 1 unused branch operand dropped" in reasons
    cond = next(n for n in result.graph.nodes if n.kind == "cond")
    assert len(cond.outputs) == 1 and len(cond.inputs) == 2
    assert all(len(b.placeholders) == 1 for b in cond.subgraphs.values())


def test_captured_programs_survive_the_pipeline():
    def f(x, w):
        h = x * w
        if h.sum() > 0:
            a = h.tanh()
            b = h * 2
        else:
            a = -h
            b = h + 1
        i = 0
        while a.sum() < 10:
            a = a + 1
        return a * 1.0
    scripted = engine.script(f)
    scripted(engine.ones(3), engine.ones(3))          # specializes for f32[3] inputs
    (graph, _, _), = scripted._cache.entries.values()
    assert any(n.kind == "cond" for n in graph.nodes) and any(n.kind == "while_loop" for n in graph.nodes)
    check_preserved(graph)


def test_constant_operands_fold_inside_branches():
    g = Graph()
    x = g.placeholder("x", (3,))
    c = g.call("add", g.constant(np.float32(1)), g.constant(np.float32(2)))      # folds to 3
    t, e = g.subgraph("then"), g.subgraph("else")
    tx, tc = t.placeholder("x", (3,)), t.placeholder("c", ())
    t.output(t.call("mul", tx, t.call("mul", tc, tc)))                          # c*c folds to 9 inside
    ex, _ = e.placeholder("x", (3,)), e.placeholder("c", ())
    e.output(e.call("neg", ex))
    (r,) = g.cond(g.call("gt", g.call("sum", x), 0.0), t, e, [x, c])
    g.output(r)
    result = check_preserved(g)
    folding = pass_snapshots(result)[0]["notes"]
    assert any("moved into the branches" in n["reason"] for n in folding)
    assert sum(n["reason"] == "folded: all inputs constant" for n in folding) == 2
    cond = next(n for n in result.graph.nodes if n.kind == "cond")
    assert len(cond.inputs) == 2                     # the constant operand was dropped by DCE


def test_snapshots_say_which_node_stands_for_a_replaced_one():
    """`replaced` lets the page follow a node from the captured graph to its final node and kernel."""
    g = redundant_graph()
    x = g.inputs[0]
    result = check_preserved(g)
    snaps = {s["name"]: s for s in pass_snapshots(result)}
    simplified = snaps["algebraic_simplification"]
    x_times_one = next(n["node"] for n in simplified["notes"] if n["reason"] == "x*1 -> x")
    assert simplified["replaced"][x_times_one] == x.id
    for note in snaps["cse"]["notes"]:                    # "CSE: same as %k" -> replaced by %k
        assert snaps["cse"]["replaced"][note["node"]] == note["reason"].rsplit(" ", 1)[1]
    assert snaps["dce"]["replaced"] == {} and snaps["fusion"]["replaced"] == {}
    final = {n.id for n in result.graph.nodes}
    dead = {n["node"] for n in snaps["dce"]["notes"]}
    for captured in (n.id for n in g.nodes if n.kind != "output"):   # each node ends in the final graph or is dead
        nid = captured
        for snap in pass_snapshots(result):
            nid = snap["replaced"].get(nid, nid)
        assert nid in final or nid in dead, captured
    inlined = pass_snapshots(check_preserved(constant_cond_graph()))[0]["replaced"]
    assert len(inlined) == 1 and list(inlined.values())[0] != list(inlined)[0]
