"""An extern call's epilogue loop that ends in a reduction (fusion, lowering, memory plan, both
backends): the bias gradient of a linear layer, sum over the batch of relu's gradient, is summed in
the loop that computes that gradient right after the BLAS call, so the MLP training step's backward
is 7 kernels again (9 when each bias gradient was a second pass over the 64x512 array)."""
import copy

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import engine
from engine import nn
from engine.capture.tracing import trace_graph
from engine.codegen import cc
from engine.codegen.executor import build
from engine.codegen.training import CompiledAutograd
from engine.ir.units import plan_units
from engine.ir import Graph, interpreter
from engine.ir.schedule import EXTERN_GROUP
from engine.passes import run_pipeline
from tests.engine.codegen.test_executor_training import WithLoss
from tests.engine.passes.test_memory_plan import check_truthful
from tests.engine.passes.test_passes import check_preserved

BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]

pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py


def units_of(graph):
    return plan_units(graph, {n.id: n for n in graph.nodes})


def assert_runs_like_the_interpreter(g: Graph, backend: str, seed: int = 0):
    """The optimized graph compiled on `backend` returns what the interpreter returns for `g`."""
    rng = np.random.default_rng(seed)
    args = [rng.standard_normal(v.shape).astype(v.dtype) for v in g.inputs]
    want = interpreter.run(g, args)
    optimized = run_pipeline(g, keep_steps=False).graph
    compiled = build(optimized, backend=backend)
    for _ in range(2):                          # the second call reuses the planned buffers
        got = compiled(*args)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)
    return optimized, compiled


# ---- the shapes ------------------------------------------------------------------------------------

def relu_gradient_and_bias_gradient():
    """One linear layer's backward through relu, as graph autodiff writes it: the gradient at the
    layer input (threshold_backward of the product) and the bias gradient (its sum over the batch),
    both returned, as both are read later."""
    g = Graph("relu_backward")
    grad_out = g.placeholder("grad_out", (8, 6))
    w = g.placeholder("w", (6, 16), role="param")
    saved = g.placeholder("relu_out", (8, 16))
    grad_h = g.call("threshold_backward", g.call("matmul", grad_out, w), saved, threshold=0.0)
    g.output(grad_h, g.call("sum_to_size", grad_h, shape=(16,)))
    return g


def addmm_tanh_mean():
    g = Graph("addmm_tanh_mean")
    x = g.placeholder("x", (5, 7))
    w = g.placeholder("w", (7, 9), role="param")
    b = g.placeholder("b", (9,), role="param")
    g.output(g.call("mean", g.call("tanh", g.call("addmm", b, x, w))))
    return g


def relu_then_amax_per_row():
    g = Graph("relu_amax")
    x = g.placeholder("x", (6, 4))
    w = g.placeholder("w", (4, 10), role="param")
    g.output(g.call("amax", g.call("relu", g.call("matmul", x, w)), dim=(1,), keepdim=True))
    return g


def exp_then_var_per_column():
    g = Graph("exp_var")
    x = g.placeholder("x", (6, 4))
    w = g.placeholder("w", (4, 5), role="param")
    g.output(g.call("var", g.call("exp", g.call("mul", g.call("matmul", x, w), 0.25)), dim=(0,)))
    return g


def a_loop_moved_into_the_epilogue_then_summed():
    """tanh(a + b) moves into the epilogue of x @ w (it does not feed the call), and the product of
    both is summed over the batch: BLAS and one loop."""
    g = Graph("moved_loop")
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    a = g.placeholder("a", (4, 8))
    b = g.placeholder("b", (4, 8))
    s = g.call("tanh", g.call("add", a, b))
    g.output(g.call("sum_to_size", g.call("mul", g.call("relu", g.call("matmul", x, w)), s), shape=(8,)))
    return g


def read_again_after_the_reduction():
    """relu(p) is summed (closing the epilogue) and then read again by a later op: that op starts a
    loop of its own, reading the relu value the epilogue stored."""
    g = Graph("read_again")
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    r = g.call("relu", g.call("matmul", x, w))
    s = g.call("sum", r, dim=(0,), keepdim=True)
    g.output(s, g.call("mul", r, 2.0))
    return g


def conv_bias_gradient():
    """A convolution's bias gradient shape: relu of the convolution summed over batch and space."""
    g = Graph("conv_sum")
    x = g.placeholder("x", (2, 3, 6, 6))
    w = g.placeholder("w", (4, 3, 3, 3), role="param")
    g.output(g.call("sum", g.call("relu", g.call("conv2d", x, w, stride=1, padding=1)), dim=(0, 2, 3)))
    return g


SHAPES = [relu_gradient_and_bias_gradient, addmm_tanh_mean, relu_then_amax_per_row, exp_then_var_per_column,
          a_loop_moved_into_the_epilogue_then_summed, conv_bias_gradient]


@pytest.mark.parametrize("make", SHAPES, ids=lambda f: f.__name__)
def test_the_reduction_ends_the_epilogue_of_one_group(make):
    g = make()
    result = check_preserved(g)                 # every pass preserves the outputs; plans are sound
    extern = [grp for grp in result.graph.fusion_groups if grp.kind == EXTERN_GROUP]
    (group,) = extern
    reduction = next(n for n in g.nodes if n.kind == "call" and n.op in
                     ("sum", "sum_to_size", "mean", "amax", "var"))
    assert group.node_ids[-1] == reduction.id
    kernels = [u for u in units_of(result.graph) if u.kind == "kernel"]
    assert len(kernels) == 1 and kernels[0].node_ids[-1] == reduction.id
    assert kernels[0].name.endswith("_epilogue")


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make", SHAPES + [read_again_after_the_reduction], ids=lambda f: f.__name__)
def test_compiled_epilogue_reductions_equal_the_interpreter(make, backend):
    optimized, compiled = assert_runs_like_the_interpreter(make(), backend)
    if backend == "c":
        assert compiled.backend == "c" and compiled.current.fallback_reason is None
        # each epilogue is one C loop nest, never split back into single nodes
        lowered = {tuple(k["nodes"]) for k in compiled.kernels}
        epilogues = [tuple(u.node_ids) for u in units_of(optimized) if u.name.endswith("_epilogue")]
        assert epilogues and all(e in lowered for e in epilogues)


def test_the_relu_gradient_is_stored_once_and_summed_in_the_same_loop():
    """The bias-gradient shape: the kernel writes grad_h (read later) and accumulates its column
    sums in the one pass over it; nothing else of the loop reaches memory (BLAS writes the product
    into grad_h's array, which the loop then overwrites in place)."""
    optimized, compiled = assert_runs_like_the_interpreter(relu_gradient_and_bias_gradient(),
                                                           BACKENDS[0])
    matmul, kernel = units_of(optimized)
    grad_h, bias = (v.id for v in optimized.outputs)
    assert matmul.kind == "matmul" and kernel.outputs == [grad_h, bias] and matmul.writes_into == grad_h
    placed = {iv.value for iv in optimized.memory_plan.intervals}
    assert placed == {grad_h, bias}


def test_an_epilogue_value_only_the_reduction_reads_never_reaches_memory():
    optimized, _ = assert_runs_like_the_interpreter(relu_then_amax_per_row(), BACKENDS[0])
    relu = next(n.id for n in optimized.nodes if n.op == "relu")
    assert relu not in {iv.value for iv in optimized.memory_plan.intervals}


def test_after_the_reduction_a_later_reader_starts_its_own_loop():
    g = read_again_after_the_reduction()
    result = check_preserved(g)
    relu, total, doubled = (next(n.id for n in g.nodes if n.op == op) for op in ("relu", "sum", "mul"))
    group_of = {nid: grp.name for grp in result.graph.fusion_groups for nid in grp.node_ids}
    assert group_of[relu] == group_of[total] != group_of[doubled]


# ---- the MLP training step ------------------------------------------------------------------------

def mlp_training_step(backend):
    """bench/training.py's model and loss, smaller: Linear-ReLU-Linear-ReLU-Linear, cross-entropy."""
    engine.manual_seed(0)
    model = nn.Sequential(nn.Linear(20, 16), nn.ReLU(), nn.Linear(16, 16), nn.ReLU(), nn.Linear(16, 5))
    rng = np.random.default_rng(0)
    x = engine.tensor(rng.standard_normal((8, 20)).astype(np.float32))
    y = engine.tensor(rng.integers(0, 5, 8))
    wrapped = WithLoss(copy.deepcopy(model), nn.CrossEntropyLoss())
    graph, _, _, names = trace_graph(wrapped, (x, y))
    params = dict(wrapped.named_parameters())
    step = CompiledAutograd(graph, wrt=[n.id for n in graph.placeholders if n.role == "param"], backend=backend)
    return step, [x.array, y.array] + [params[n].array for n in names]


@pytest.mark.parametrize("backend", BACKENDS)
def test_mlp_training_step_kernels_and_values(backend):
    step, arrays = mlp_training_step(backend)
    forward, backward = step.forward, step.backward
    # (the numpy backend runs nll_loss and its gradient's scatter as library ops, not kernels)
    assert (len(forward.kernels), len(backward.kernels)) == ((4, 7) if backend == "c" else (3, 6))
    bwd = backward.current.graph
    # both ReLU layers' gradients: BLAS, then one loop ending in the bias gradient's sum
    ends = [grp for grp in bwd.fusion_groups if grp.kind == EXTERN_GROUP and len(grp.node_ids) > 1 and
            bwd.node_by_id(grp.node_ids[-1]).op == "sum_to_size"]
    assert [[bwd.node_by_id(i).op for i in grp.node_ids] for grp in ends] == \
        [["matmul", "threshold_backward", "sum_to_size"]] * 2
    assert not [u for u in units_of(bwd) if u.kind == "kernel" and len(u.node_ids) == 1 and
                bwd.node_by_id(u.node_ids[0]).op == "sum_to_size"]
    # memory: the two relu gradients (8x16) alternate between two arrays, as when each loop was a
    # group of its own after its product (BLAS writes each product into its gradient's array)
    plan = bwd.memory_plan
    layer_sized = {iv.buffer for iv in plan.intervals if iv.bytes == 8 * 16 * 4 and iv.buffer is not None}
    assert len(layer_sized) <= 2
    # compiled forward and backward against the interpreter on the same optimized graphs
    outs = step.run_forward(arrays)
    want = interpreter.run(forward.current.graph, arrays)
    for a, b in zip(outs, want):
        np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    saved = [arrays[i] if kind == "input" else outs[i] for kind, i in step.saved_plan]
    seeds = [np.ones((), np.float32)]
    grads = step.run_backward(seeds, saved)
    want = interpreter.run(bwd, seeds + saved)
    assert len(grads) == len(want) == 6
    for a, b in zip(grads, want):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-6)


# ---- random epilogues ending in a reduction ----------------------------------------------------------

UNARY = ["neg", "exp", "tanh", "relu", "abs"]
BINARY = ["add", "sub", "mul", "maximum"]


@st.composite
def epilogue_reductions(draw):
    """A product (matmul or addmm) of random shape, a random elementwise DAG on it (reading the
    product, earlier values, same-shape inputs and broadcast rows), some values also returned,
    ending in a random reduction over random dims."""
    m, k, n = (draw(st.sampled_from([1, 2, 3, 5])) for _ in range(3))
    g = Graph("random_epilogue")
    x = g.placeholder("x", (m, k))
    w = g.placeholder("w", (k, n), role="param")
    if draw(st.booleans()):
        p = g.call("addmm", g.placeholder("b", (n,), role="param"), x, w)
    else:
        p = g.call("matmul", x, w)
    values, side = [p], []
    for _ in range(draw(st.integers(1, 4))):
        a = draw(st.sampled_from(values))
        kind = draw(st.sampled_from(["unary", "binary", "input", "row"]))
        if kind == "unary":
            values.append(g.call(draw(st.sampled_from(UNARY)), a))
        elif kind == "binary":
            values.append(g.call(draw(st.sampled_from(BINARY)), a, draw(st.sampled_from(values))))
        elif kind == "input":
            values.append(g.call("mul", a, g.placeholder(f"s{len(values)}", (m, n))))
        else:
            row = g.call("expand", g.placeholder(f"r{len(values)}", (n,)), shape=(m, n))
            values.append(g.call("add", a, row))
        if draw(st.integers(0, 3)) == 0:
            side.append(values[-1])
    last = values[-1]
    op = draw(st.sampled_from(["sum", "mean", "amax", "sum_to_size", "var"]))
    if op == "sum_to_size":
        red = g.call(op, last, shape=draw(st.sampled_from([(n,), (1, n), (m, 1), ()])))
    elif op == "var":
        red = g.call(op, last, dim=draw(st.sampled_from([(0,), (1,), None])))
    else:
        red = g.call(op, last, dim=draw(st.sampled_from([(0,), (1,), (0, 1), None])),
                     keepdim=draw(st.booleans()))
    g.output([red] + side)
    return g


@pytest.mark.parametrize("backend", BACKENDS)
def test_random_epilogue_reductions_run_like_the_interpreter(backend):
    @settings(max_examples=25 if backend == "c" else 40, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
    @given(epilogue_reductions(), st.integers(0, 3))
    def check(g, seed):
        with np.errstate(all="ignore"):
            check_preserved(g)
            assert_runs_like_the_interpreter(g, backend, seed)
    check()


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(epilogue_reductions())
def test_random_epilogue_reductions_have_truthful_memory_plans(g):
    """Their plans' peaks equal an independent walk of the executor's steps (test_memory_plan)."""
    with np.errstate(all="ignore"):
        check_truthful(g)
