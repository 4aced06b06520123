"""The fused ops (layer/batch norm, leaky_relu, silu, adaptive pooling, sort/topk values, the robust
losses, division by a number) compiled: each op case's forward and graph-autodiff backward,
after every pass, run by the executor on both backends equal the reference interpreter, in float64
and float32, with elementwise work around the op so that kernels are generated beside it."""
import numpy as np
import pytest

from engine.autodiff import joint_graph
from engine.codegen import cc
from engine.codegen.executor import build
from engine.ir import Graph, interpreter
from engine.passes import run_pipeline
from tests.engine.op_cases import CASES

pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py

BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]
FUSED_OPS = ["leaky_relu", "silu", "native_layer_norm", "native_batch_norm", "adaptive_avg_pool2d",
             "adaptive_avg_pool2d_backward", "sort", "topk", "smooth_l1_loss", "huber_loss", "div_scalar",
             "reciprocal"]


def _params():
    for name in FUSED_OPS:
        for i, case in enumerate(CASES[name]):
            yield pytest.param(name, case, id=f"{name}-{i}")


def _training_graph(name, case, dtype):
    """tanh(x * 0.5) -> op (x its first input, the others as given: parameters) -> * 2, and its joint
    forward + backward graph (float inputs in dtype)."""
    g = Graph(name)
    values = []
    for i, a in enumerate(case.inputs):
        p = g.placeholder(f"in{i}", a.shape, dtype if a.dtype.kind == "f" else a.dtype)
        values.append(g.call("tanh", g.call("mul", p, 0.5)) if i == 0 and i in case.diff else p)
    g.output(g.call("mul", g.call(name, *values, **case.attrs), 2.0))
    return joint_graph(g, wrt=[g.inputs[i].id for i in case.diff]).graph


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("name,case", list(_params()))
def test_forward_and_backward_compile_to_the_interpreters_values(name, case, dtype, backend):
    graph = _training_graph(name, case, dtype)
    rng = np.random.default_rng(0)
    args = [a.astype(dtype) if a.dtype.kind == "f" else a for a in case.inputs]
    out_shape = tuple(graph.inputs[-1].shape)          # the joint graph's last input is the cotangent
    args.append(rng.standard_normal(out_shape).astype(dtype))
    want = interpreter.run(graph, args)
    compiled = build(run_pipeline(graph).graph, backend=backend)
    got = compiled(*args)
    assert len(got) == len(want) == 1 + len(case.diff)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    for i, (a, b) in enumerate(zip(got, want)):
        assert a.shape == b.shape and a.dtype == b.dtype, f"output {i}"
        np.testing.assert_allclose(a, b, rtol=tol * 4, atol=tol, err_msg=f"output {i} of {name}")


def test_a_computed_weight_of_layer_norm_trains_compiled():
    """The layer norm weight computed by elementwise ops (tanh(w * 0.5)) in a joint graph: fusion must
    not put the weight's gradient into the loop that computes the weight (the old composition of
    mean/var/div hit the same cycle)."""
    case = CASES["native_layer_norm"][0]
    g = Graph("computed_weight")
    x, w, b = (g.placeholder(f"in{i}", a.shape, np.float64) for i, a in enumerate(case.inputs))
    g.output(g.call("native_layer_norm", x, g.call("tanh", g.call("mul", w, 0.5)), b, **case.attrs))
    joint = joint_graph(g, wrt=[v.id for v in g.inputs]).graph
    cotangent = np.random.default_rng(0).standard_normal(case.inputs[0].shape)
    got = build(run_pipeline(joint).graph, backend="numpy")(*case.inputs, cotangent)
    for a, b in zip(got, interpreter.run(joint, list(case.inputs) + [cotangent])):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("backend", BACKENDS)
def test_leaky_relu_and_silu_fuse_with_their_gradients_into_one_loop(backend):
    """They are elementwise ops: the chain around them and its backward are one kernel."""
    from engine.ir.units import plan_units
    g = Graph("activations")
    x = g.placeholder("x", (4, 8), np.float32)
    g.output(g.call("add", g.call("silu", g.call("leaky_relu", g.call("mul", x, 2.0), negative_slope=0.2)), 1.0))
    joint = joint_graph(g).graph
    optimized = run_pipeline(joint).graph
    (group,) = optimized.fusion_groups
    assert group.kind == "elementwise"
    nodes_by_id = {n.id: n for n in optimized.nodes}
    assert [u.kind for u in plan_units(optimized, nodes_by_id)] == ["kernel"]
    args = [np.random.default_rng(1).uniform(-2, 2, (4, 8)).astype(np.float32),
            np.random.default_rng(2).standard_normal((4, 8)).astype(np.float32)]
    for a, b in zip(build(optimized, backend=backend)(*args), interpreter.run(joint, args)):
        np.testing.assert_allclose(a, b, rtol=4e-5, atol=1e-5)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("dtype", [np.float32, np.int64])
def test_scalar_over_tensor_fuses_and_rounds_as_the_interpreter(backend, dtype):
    """`2.5 / x` as recorded (reciprocal(x) * 2.5, PyTorch's two roundings) and, for a float x, its
    backward: one elementwise kernel, whose forward values are the interpreter's to the last bit."""
    from engine.ir.units import plan_units
    g = Graph("scalar_over_tensor")
    x = g.placeholder("x", (4, 8), dtype)
    g.output(g.call("add", g.call("mul", g.call("reciprocal", x), 2.5), 1.0))
    graph = joint_graph(g).graph if dtype == np.float32 else g
    optimized = run_pipeline(graph).graph
    (group,) = optimized.fusion_groups
    assert group.kind == "elementwise" and "reciprocal" in {n.op for n in optimized.nodes if n.id in group.node_ids}
    assert [u.kind for u in plan_units(optimized, {n.id: n for n in optimized.nodes})] == ["kernel"]
    rng = np.random.default_rng(4)
    x_value = (rng.uniform(0.2, 9, (4, 8)) * rng.choice([-1, 1], (4, 8))).astype(dtype)
    args = [x_value] + ([rng.standard_normal((4, 8)).astype(np.float32)] if dtype == np.float32 else [])
    got, want = build(optimized, backend=backend)(*args), interpreter.run(graph, args)
    assert got[0].dtype == want[0].dtype == np.float32 and got[0].tobytes() == want[0].tobytes()
    for a, b in zip(got[1:], want[1:]):
        np.testing.assert_allclose(a, b, rtol=4e-6, atol=1e-6)
