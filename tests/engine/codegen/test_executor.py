"""The executor: planned buffers preallocated and reused, views kept safe from buffer reuse,
matmul epilogues, control flow, re-specialization on a new signature, backend choice."""
import numpy as np
import pytest

from engine.codegen import cc
from engine.codegen.executor import build, choose_backend
from engine.ir import interpreter
from engine.ir.graph import Graph
from engine.passes import run_pipeline


pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py


BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]


def _compile(g, backend):
    return build(run_pipeline(g).graph, backend=backend)


def _assert_matches(g, compiled, args, rtol=1e-5):
    for a, b in zip(compiled(*args), interpreter.run(g, args)):
        np.testing.assert_allclose(a, b, rtol=rtol, atol=1e-6)


def _mlp_graph(batch=8):
    g = Graph("mlp")
    x = g.placeholder("x", (batch, 6), np.float32)
    w1 = g.placeholder("w1", (6, 5), np.float32, role="param")
    b1 = g.placeholder("b1", (5,), np.float32, role="param")
    w2 = g.placeholder("w2", (5, 3), np.float32, role="param")
    h = g.call("relu", g.call("addmm", b1, x, w1))
    logits = g.call("matmul", h, w2)
    g.output(g.call("mean", g.call("tanh", logits)), h)
    return g


def _mlp_args(rng, batch=8):
    return [rng.standard_normal(s).astype(np.float32) for s in [(batch, 6), (6, 5), (5,), (5, 3)]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_matmul_epilogue_fuses_and_buffers_are_reused_across_calls(backend):
    g = _mlp_graph()
    compiled = _compile(g, backend)
    rng = np.random.default_rng(0)
    names = [k["name"] for k in compiled.kernels]
    assert any(n.endswith("_epilogue") for n in names), names      # bias add + relu after the BLAS call
    first_arrays = {k: v.ctypes.data for k, v in compiled.current.arrays.items()}
    for _ in range(3):
        args = _mlp_args(rng)
        _assert_matches(g, compiled, args)
    assert {k: v.ctypes.data for k, v in compiled.current.arrays.items()} == first_arrays
    out1 = compiled(*args)
    out1[1][...] = 123.0                                    # callers own their outputs
    np.testing.assert_allclose(compiled(*args)[1], interpreter.run(g, args)[1], rtol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
def test_planned_buffer_sharing_stays_correct_with_views(backend):
    """A plan that lets a later matmul reuse `a`'s buffer once the reshape has read it (a planner
    that does not know the executor runs reshapes as views of `a` may make one; this test makes
    it so whatever the planner decides): the executor must keep `a` alive, giving `b` its own memory."""
    g = Graph("views")
    x = g.placeholder("x", (16, 16), np.float32)
    w = g.placeholder("w", (16, 16), np.float32)
    a = g.call("matmul", x, w)
    t = g.call("reshape", a, shape=(256,))                         # run as a view of a
    b = g.call("matmul", w, x)                                     # planned into a's buffer
    g.output(g.call("add", t, g.call("reshape", b, shape=(256,))))
    optimized = run_pipeline(g).graph
    assignment = dict(optimized.memory_plan.assignment())
    assignment[b.id] = assignment[a.id]
    optimized.memory_plan.assignment = lambda: assignment          # b shares a's buffer, as planned
    compiled = build(optimized, backend=backend)
    rng = np.random.default_rng(1)
    _assert_matches(g, compiled, [rng.standard_normal((16, 16)).astype(np.float32) for _ in range(2)])
    assert compiled.current.arrays[a.id].ctypes.data != compiled.current.arrays[b.id].ctypes.data


@pytest.mark.parametrize("backend", BACKENDS)
def test_plan_reuse_happens_when_safe(backend):
    g = Graph("chain")
    x = g.placeholder("x", (32, 32), np.float32)
    v = x
    for _ in range(4):
        v = g.call("matmul", g.call("tanh", v), x)
    g.output(v)
    compiled = _compile(g, backend)
    assert compiled.current.memory["shared"] > 0
    _assert_matches(g, compiled, [np.random.default_rng(2).standard_normal((32, 32)).astype(np.float32) * 0.2])


@pytest.mark.parametrize("backend", BACKENDS)
def test_new_signature_respecializes_and_is_recorded_like_a_retrace(backend):
    g = Graph("f")
    x = g.placeholder("x", (4, 3), np.float32)
    g.output(g.call("sum", g.call("exp", g.call("mul", x, 0.5)), dim=(1,)))
    compiled = _compile(g, backend)
    rng = np.random.default_rng(3)
    small, big = rng.standard_normal((4, 3)).astype(np.float32), rng.standard_normal((6, 3)).astype(np.float32)
    np.testing.assert_allclose(compiled(small)[0], np.exp(small * 0.5).sum(1), rtol=1e-5)
    np.testing.assert_allclose(compiled(big)[0], np.exp(big * 0.5).sum(1), rtol=1e-5)
    assert len(compiled.retraces) == 1
    assert "input 0: float32[4, 3] -> float32[6, 3]" in compiled.retraces[0]["reason"]
    compiled(small)                                        # the first specialization is kept
    compiled(big.astype(np.float64))                        # a dtype is part of the signature
    assert len(compiled.retraces) == 2 and "float64[6, 3]" in compiled.retraces[1]["reason"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_control_flow_and_noncontiguous_user_inputs(backend):
    g = Graph("cond")
    x = g.placeholder("x", (3, 4), np.float32)
    then_g, else_g = g.subgraph("then"), g.subgraph("else")
    a = then_g.placeholder("y", (3, 4), np.float32)
    then_g.output(then_g.call("add", a, 1.0))
    b = else_g.placeholder("y", (3, 4), np.float32)
    else_g.output(else_g.call("neg", b))
    pred = g.call("gt", g.call("sum", x), 0.0)
    (r,) = g.cond(pred, then_g, else_g, [g.call("mul", x, 2.0)])
    g.output(g.call("tanh", r))
    compiled = _compile(g, backend)
    base = np.random.default_rng(4).standard_normal((4, 3)).astype(np.float32)
    for arr in (base.T, -base.T):                          # transposed views as inputs, both branches
        _assert_matches(g, compiled, [arr])


def test_backend_choice(monkeypatch):
    monkeypatch.setenv("DAGSCOPE_BACKEND", "numpy")
    assert choose_backend() == "numpy"
    g = _mlp_graph()
    compiled = build(run_pipeline(g).graph)
    assert compiled.backend == "numpy" and {k["language"] for k in compiled.kernels} == {"numpy"}
    _assert_matches(g, compiled, _mlp_args(np.random.default_rng(5)))
    monkeypatch.delenv("DAGSCOPE_BACKEND")
    monkeypatch.setenv("DAGSCOPE_CC", "/nonexistent/cc")      # a machine without a C compiler
    assert choose_backend() == "numpy"


@pytest.mark.parametrize("backend", BACKENDS)
def test_transposed_product_is_computed_in_the_layout_its_user_wants(backend):
    """(x.T @ g).T — nn.Linear's weight gradient — comes out C-ordered from one BLAS call."""
    g = Graph("wgrad")
    x = g.placeholder("x", (8, 5), np.float32)
    d = g.placeholder("d", (8, 3), np.float32)
    prod = g.call("matmul", g.call("transpose", x, dim0=0, dim1=1), d)
    g.output(g.call("transpose", prod, dim0=0, dim1=1))
    compiled = _compile(g, backend)
    assert [u.kind for u in compiled.current.units].count("view") == 1      # only x.T remains a view
    rng = np.random.default_rng(6)
    args = [rng.standard_normal((8, 5)).astype(np.float32), rng.standard_normal((8, 3)).astype(np.float32)]
    (out,) = compiled(*args)
    assert out.flags.c_contiguous
    np.testing.assert_allclose(out, (args[0].T @ args[1]).T, rtol=1e-5)


def test_report_timings_are_bounded_and_kernels_listed():
    import time as _time
    from engine.record.kernels import kernels_record, timings
    g = _mlp_graph()
    compiled = _compile(g, BACKENDS[0])
    args = _mlp_args(np.random.default_rng(7))
    slow_calls = []

    def slow_eager():                        # a slow eager mode: measured once, not five times
        slow_calls.append(1)
        _time.sleep(0.25)
    t = timings(slow_eager, lambda: compiled(*args), compiled, budget_ms=100)
    assert len(slow_calls) == 1 and t["runs"]["eager"] == 1 and t["eager_ms"] >= 250
    assert t["compiled_ms"] > 0 and t["speedup"] > 1 and t["backend"] == compiled.backend
    kernels = kernels_record(compiled)
    assert kernels and all({"name", "language", "source", "nodes", "compile_ms", "cache_hit", "graph"} <= set(k)
                           for k in kernels)


@pytest.mark.parametrize("backend", BACKENDS)
def test_output_arrays_are_recycled_only_when_nothing_refers_to_them(backend):
    g = Graph("f")
    x = g.placeholder("x", (1000,), np.float32)
    g.output(g.call("exp", g.call("mul", x, 1.0 + 1e-3)))
    compiled = _compile(g, backend)
    one = np.ones(1000, np.float32)
    kept = compiled(one)[0]
    first = kept.ctypes.data
    view = compiled(one * 2)[0][10:]             # only a view of the second result survives
    compiled(one * 3)
    np.testing.assert_allclose(kept, np.exp(np.float32(1.001)), rtol=1e-6)     # untouched
    np.testing.assert_allclose(view, np.exp(np.float32(2.002)), rtol=1e-6)     # untouched
    del kept
    assert compiled(one)[0].ctypes.data == first                                 # now reused


@pytest.mark.skipif(not cc.have_compiler(), reason="no C compiler")
def test_a_refused_compile_falls_back_to_numpy_and_says_why(tmp_path, monkeypatch):
    from engine.codegen import loader
    from engine.record.kernels import timings
    monkeypatch.setenv("DAGSCOPE_KERNEL_CACHE", str(tmp_path))    # nothing cached: must compile
    loader.forget_loaded()

    def refuse(description):                                       # what the sandbox broker does
        raise cc.CompileError("refused kernel description: kernel 0.steps[0].op: not an elementwise op")
    cc.set_compiler_service(refuse)
    try:
        g = _mlp_graph()
        compiled = _compile(g, "c")
    finally:
        cc.set_compiler_service(None)
    assert compiled.backend == "numpy" and "refused" in compiled.fallback_reason
    assert {k["language"] for k in compiled.kernels} == {"numpy"}
    args = _mlp_args(np.random.default_rng(8))
    _assert_matches(g, compiled, args)
    assert "numpy backend" in timings(None, lambda: compiled(*args), compiled)["note"]


# ---- random graphs: the executor equals the reference interpreter --------------------------------

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

SHAPES = [(3, 4), (4,), (1, 4), (3, 1), (), (4, 3)]
UNARY = ["neg", "exp", "tanh", "relu", "sigmoid", "abs", "gelu", "sin"]
BINARY = ["add", "sub", "mul", "div", "maximum", "minimum"]
REDUCE = ["sum", "mean", "amax", "logsumexp", "var"]


@st.composite
def random_graphs(draw):
    g = Graph("random")
    values = [g.placeholder(f"x{i}", s) for i, s in
              enumerate(draw(st.lists(st.sampled_from(SHAPES), min_size=1, max_size=3)))]
    for _ in range(draw(st.integers(1, 12))):
        kind = draw(st.sampled_from(["unary", "binary", "binary", "reduce", "move", "matmul", "where"]))
        a = draw(st.sampled_from(values))
        try:
            if kind == "unary":
                values.append(g.call(draw(st.sampled_from(UNARY)), a))
            elif kind == "binary":
                values.append(g.call(draw(st.sampled_from(BINARY)), a, draw(st.sampled_from(values + [2.0]))))
            elif kind == "reduce" and a.ndim:
                dim = draw(st.sampled_from([(0,), (a.ndim - 1,), tuple(range(a.ndim))]))
                values.append(g.call(draw(st.sampled_from(REDUCE)), a, dim=dim, keepdim=draw(st.booleans())))
            elif kind == "move" and a.ndim == 2:
                op = draw(st.sampled_from(["transpose", "expand", "reshape"]))
                if op == "transpose":
                    values.append(g.call("transpose", a, dim0=0, dim1=1))
                elif op == "expand":
                    values.append(g.call("expand", a, shape=(2,) + tuple(a.shape)))
                else:
                    values.append(g.call("reshape", a, shape=(int(np.prod(a.shape)),)))
            elif kind == "matmul" and a.ndim == 2:
                b = draw(st.sampled_from([v for v in values if v.ndim == 2] or [a]))
                values.append(g.call("matmul", a, g.call("transpose", b, dim0=0, dim1=1))
                              if a.shape[1] == b.shape[1] else g.call("matmul", a, b))
            elif kind == "where":
                values.append(g.call("where", g.call("gt", a, 0.0), a, draw(st.sampled_from(values))))
        except (ValueError, RuntimeError, IndexError):
            continue      # shapes that do not fit: draw again
    g.output(draw(st.lists(st.sampled_from(values), min_size=1, max_size=3)))
    return g


def _random_check(g, backend):
    rng = np.random.default_rng(0)
    args = [rng.standard_normal(n.out.shape).astype(np.float32) for n in g.placeholders]
    with np.errstate(all="ignore"):
        expected = interpreter.run(g, args)
        got = _compile(g, backend)(*args)
    for a, b in zip(got, expected):
        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-5)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_on_the_c_backend(g):
    if "c" not in BACKENDS:
        pytest.skip("no C compiler")
    _random_check(g, "c")


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_on_the_numpy_backend(g):
    _random_check(g, "numpy")


@pytest.mark.skipif(not cc.have_compiler(), reason="no C compiler")
def test_addmm_bias_is_added_in_the_epilogue_kernel_unless_the_product_is_needed_alone():
    rng = np.random.default_rng(3)
    g = _mlp_graph()
    compiled = _compile(g, "c")
    sources = [k["source"] for k in compiled.kernels]
    assert any("bias of" in s for s in sources), sources
    _assert_matches(g, compiled, _mlp_args(rng))
    # the pre-activation is also an output: the BLAS call's result must hold the bias itself
    g2 = Graph("both")
    x = g2.placeholder("x", (4, 6), np.float32)
    w = g2.placeholder("w", (6, 5), np.float32)
    b = g2.placeholder("b", (5,), np.float32)
    pre = g2.call("addmm", b, x, w)
    g2.output(g2.call("relu", pre), pre)
    compiled2 = _compile(g2, "c")
    assert not any("bias of" in k["source"] for k in compiled2.kernels)
    _assert_matches(g2, compiled2, [rng.standard_normal(s).astype(np.float32) for s in [(4, 6), (6, 5), (5,)]])


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_reshape_numpy_has_to_copy_feeds_a_kernel_contiguously(backend):
    """The generated run function checks a view's strides where a kernel first reads it: a
    reshape of a transposed input is a copy at run time, which the kernel reads as such."""
    g = Graph("reshape_copy")
    a = g.placeholder("a", (4, 6), np.float32)
    flat = g.call("reshape", g.call("transpose", a, dim0=0, dim1=1), shape=(24,))
    g.output(g.call("exp", g.call("mul", flat, 2.0)))
    compiled = _compile(g, backend)
    x = np.arange(24, dtype=np.float32).reshape(4, 6) / 24
    _assert_matches(g, compiled, [x])
    assert "def run(" in compiled.current.run_source


@pytest.mark.parametrize("backend", BACKENDS)
def test_convolutions_cat_and_stack_write_into_their_planned_buffers(backend):
    """conv2d (bias, stride, uneven padding), cat of mixed dtypes and stack at a negative dim run
    with `out=` into the planned buffers and compute what the reference interpreter does, call
    after call (a shared padded buffer gets its zero border back every call)."""
    g = Graph("conv_cat")
    x = g.placeholder("x", (2, 3, 9, 8), np.float32)
    w = g.placeholder("w", (4, 3, 3, 2), np.float32, role="param")
    b = g.placeholder("b", (4,), np.float32, role="param")
    k = g.placeholder("k", (2, 4, 5, 4), np.int32)
    c1 = g.call("tanh", g.call("conv2d", x, w, b, stride=2, padding=(1, 0)))
    c2 = g.call("conv2d", g.call("exp", x), w, stride=(1, 2), padding=1)
    joined = g.call("cat", c1, k, dim=-1)
    stacked = g.call("stack", c1, g.call("neg", c1), dim=-2)
    g.output(g.call("sum", joined), g.call("mul", stacked, 2.0), g.call("relu", c2))
    rng = np.random.default_rng(3)
    compiled = _compile(g, backend)
    spec = compiled.current
    convs = [n.id for n in spec.graph.nodes if n.op == "conv2d"]
    assert all(f"{c}:im2col" in spec.arrays for c in convs)
    assert any(n.op == "cat" and (n.id in spec.arrays or n.id in spec.fresh) for n in spec.graph.nodes)
    for _ in range(2):
        args = [rng.standard_normal((2, 3, 9, 8)).astype(np.float32),
                rng.standard_normal((4, 3, 3, 2)).astype(np.float32),
                rng.standard_normal(4).astype(np.float32), rng.integers(-5, 5, (2, 4, 5, 4)).astype(np.int32)]
        _assert_matches(g, compiled, args, rtol=1e-4)
