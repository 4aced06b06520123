"""The memory plan tells the truth: its peaks equal what the executor's schedule really holds in
memory, counted independently here by walking the executor's steps (engine.ir.units) with
the sizes of the arrays the reference interpreter computes, and every array the executor
preallocates lives in a buffer the plan placed."""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

from engine.codegen.executor import build
from engine.ir.units import plan_units
from engine.ir import Graph
from engine.ir.interpreter import evaluate
from engine.passes import run_pipeline
from engine.passes.memory_planning import plan_memory
from tests.engine.passes.test_passes import check_memory_plan, inputs_for, random_graphs


def conv_scratch_bytes(node, env) -> dict[str, int]:
    """The scratch a float convolution runs in, from the arrays themselves: the zero-padded input
    (when padded), the im2col columns, one row per (channel, kernel offset), one column per
    output position, and for a batch the product in (channel, batch, position) order."""
    x, w, out = env[node.inputs[0].id], env[node.inputs[1].id], env[node.id]
    if len({x.dtype, w.dtype, out.dtype}) != 1 or x.dtype.kind != "f":
        return {}
    pad = node.attrs.get("padding", 0)
    ph, pw = (pad, pad) if isinstance(pad, int) else pad
    n, c, h, wd = x.shape
    scratch = {f"{node.id}:padded": n * c * (h + 2 * ph) * (wd + 2 * pw) * x.itemsize} if ph or pw else {}
    scratch[f"{node.id}:im2col"] = n * c * w.shape[2] * w.shape[3] * out.shape[2] * out.shape[3] * x.itemsize
    if n > 1:
        scratch[f"{node.id}:product"] = out.nbytes
    return scratch


def true_live_bytes(g: Graph, args) -> tuple[list[int], int]:
    """Bytes held in memory at each step of the fusion schedule (one more for the returned values),
    and the bytes of all those arrays together (the peak without reuse):
    every array a BLAS call, a kernel or a library op writes, alive from its step to its last
    reader's, and a convolution's scratch during its step; a view holds none of its own but keeps
    its source alive."""
    env = evaluate(g, args)
    size: dict[str, int] = {}
    step_of = {nid: i for i, grp in enumerate(g.fusion_groups) for nid in grp.node_ids}
    inputs = {n.id for n in g.nodes if n.kind in ("placeholder", "constant")}
    source: dict[str, str] = {}
    born: dict[str, int] = {}
    last: dict[str, int] = {}
    for unit in plan_units(g, {n.id: n for n in g.nodes}):
        # the group during which the executor runs the unit: a kernel merged into its consumer
        # runs with the consumer (the later group), transpose(a @ b) folded into one BLAS call
        # runs where the product did (the earlier group)
        step = unit.step
        assert min(step_of[nid] for nid in unit.node_ids) <= step <= max(step_of[nid] for nid in unit.node_ids)
        for v in unit.inputs:
            root = source.get(v, v)
            if root in born:
                last[root] = max(last[root], step)
        for v in unit.outputs:
            if unit.kind == "view":
                src = unit.inputs[0]
                source[v] = source.get(src, src)
            elif unit.writes_into is not None:
                # BLAS writes the product into the array of the epilogue's value (born at this
                # step too: the epilogue runs in the same group), which is read in its place
                source[v] = unit.writes_into
            elif v not in inputs:
                born[v], last[v] = step, step
                node = next(n for n in g.nodes if n.id == v.split(".")[0])
                if node.op == "conv2d":
                    for sid, nbytes in conv_scratch_bytes(node, env).items():
                        born[sid], last[sid], size[sid] = step, step, nbytes
    steps = len(g.fusion_groups)
    for v in g.outputs:
        root = source.get(v.id, v.id)
        if root in born:
            last[root] = steps
    size.update({v: np.asarray(env[v]).nbytes for v in born if v not in size})
    return [sum(size[v] for v in born if born[v] <= t <= last[v]) for t in range(steps + 1)], sum(size.values())


def check_truthful(g: Graph):
    args = inputs_for(g)
    optimized = run_pipeline(g, keep_steps=False).graph
    plan = optimized.memory_plan
    check_memory_plan(optimized)
    live, total = true_live_bytes(optimized, args)
    env = evaluate(optimized, args)
    assert plan.live_peak_bytes == max(live)
    assert plan.peak_bytes_before == total
    scratch = {sid: b for n in optimized.nodes if n.op == "conv2d" for sid, b in conv_scratch_bytes(n, env).items()}
    for iv in plan.intervals:
        assert iv.bytes == (scratch[iv.value] if iv.value in scratch else np.asarray(env[iv.value]).nbytes)
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
    # the epilogue's relu(2 p) is summed in the loop that computes it: only the product and the
    # scalar sum are ever in memory
    assert plan.live_peak_bytes == 8 * 32 * 4 + 4
    assert {iv.value for iv in plan.intervals} == {product, g.outputs[0].id}


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
    plan = plan_memory(run_pipeline(g, keep_steps=False).graph)
    out_buffer = plan.assignment()[v.id]
    assert next(b for b in plan.buffers if b.id == out_buffer).values == [v.id]


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(random_graphs())
def test_random_graphs_plans_are_truthful(g):
    with np.errstate(all="ignore"):
        check_truthful(g)


# ---- regressions the random graphs found: the executor's lowering rules change what reaches memory ----

def product_and_gram(g: Graph):
    """x (3, 4) and x @ x.T, the random graphs' product."""
    x = g.placeholder("x0", (3, 4))
    return x, g.call("matmul", x, g.call("transpose", x, dim0=0, dim1=1))


def epilogue_merged_past_a_reduction():
    """neg(p) is the product's epilogue in fusion, but its only reader is the add after sum(p):
    the executor moves the neg into the add's loop, so neg(p) is never written and p is read
    until the add."""
    g = Graph("merged_epilogue_reduction")
    _, p = product_and_gram(g)
    g.output(g.call("neg", g.call("add", g.call("neg", p), g.call("sum", p, dim=None, keepdim=False))))
    return g


def epilogue_merged_past_a_view():
    """As above with a transposed view of the product, which keeps the product alive, instead
    of the reduction."""
    g = Graph("merged_epilogue_view")
    _, p = product_and_gram(g)
    g.output(g.call("add", g.call("neg", p), g.call("transpose", p, dim0=0, dim1=1)))
    return g


def transposed_product():
    """transpose(x @ x.T) read by a kernel: one BLAS call writes the transposed product (a
    buffer the plan must place); the product itself never exists."""
    g = Graph("transposed_product")
    _, p = product_and_gram(g)
    g.output(g.call("neg", g.call("transpose", p, dim0=0, dim1=1)))
    return g


def node_id(g: Graph, op: str, nth: int = 0) -> str:
    return [n.id for n in g.nodes if n.op == op][nth]


@pytest.mark.parametrize("make", [epilogue_merged_past_a_reduction, epilogue_merged_past_a_view])
def test_an_epilogue_merged_into_its_consumer_is_never_written(make):
    g = make()
    plan = check_truthful(g)
    placed = {iv.value: iv for iv in plan.intervals}
    epilogue, product, add = node_id(g, "neg"), node_id(g, "matmul"), node_id(g, "add")
    assert epilogue not in placed
    add_step = next(i for i, grp in enumerate(run_pipeline(g, keep_steps=False).graph.fusion_groups)
                    if add in grp.node_ids)
    assert placed[product].end == add_step        # the merged loop reads the product there


def test_a_transposed_product_is_the_value_placed():
    g = transposed_product()
    plan = check_truthful(g)
    placed = {iv.value for iv in plan.intervals}
    assert node_id(g, "transpose", 1) in placed and node_id(g, "matmul") not in placed


# ---- the executor really holds what the plan says ---------------------------------------------------

def conv_net():
    """Two padded convolutions (each with its im2col scratch), their epilogues, a cat of both
    activations, and an output that is a view (a reshape) of the cat."""
    g = Graph("convnet")
    x = g.placeholder("x", (4, 4, 32, 32))
    w1 = g.placeholder("w1", (8, 4, 3, 3), role="param")
    w2 = g.placeholder("w2", (8, 8, 3, 3), role="param")
    a = g.call("relu", g.call("mul", g.call("conv2d", x, w1, stride=1, padding=1), 2.0))
    b = g.call("tanh", g.call("conv2d", a, w2, stride=1, padding=1))
    joined = g.call("cat", a, b, dim=1)
    g.output(g.call("reshape", joined, shape=(4, 16 * 32 * 32)), g.call("sum", b))
    return g


def mlp_with_view_outputs():
    """matmul/addmm epilogues layer after layer (buffers reused), a stack of two activations, and
    outputs that are views of intermediates (a transpose, a slice)."""
    g = Graph("mlp_views")
    h = g.placeholder("x", (64, 256))
    layers = []
    for i in range(3):
        w = g.placeholder(f"w{i}", (256, 256), role="param")
        b = g.placeholder(f"b{i}", (256,), role="param")
        h = g.call("tanh", g.call("addmm", b, h, w))
        layers.append(h)
    stacked = g.call("stack", layers[0], g.call("exp", layers[2]), dim=0)
    g.output(g.call("transpose", layers[1], dim0=0, dim1=1), g.call("sum", stacked),
             g.call("slice", g.call("relu", g.call("matmul", h, w)), dim=0, start=0, end=8, step=1))
    return g


PYTHON_SLACK = 16 * 1024   # the call's own Python objects (argument lists, views' headers, ctypes)
UFUNC_BUFFER = np.getbufsize() * 4   # a broadcasting float32 ufunc's iterator buffer (bias adds)


@pytest.mark.usefixtures("kernel_cache")
@pytest.mark.parametrize("backend", ["c", "numpy"])
@pytest.mark.parametrize("make", [conv_net, mlp_with_view_outputs, two_layers])
def test_the_executor_holds_no_more_than_the_plan(make, backend):
    """What a call of the compiled graph really holds at its peak: the planned buffers (allocated
    once when compiling, `spec.memory["bytes"]`, each a raw allocation) plus the most numpy
    allocated during the call, measured by tracemalloc (numpy reports every array's data to it):
    fresh outputs, arrays an op creates, copies. That must be at most the plan's
    peak_bytes_after, the sum of its buffers, which already counts each output (and each array a
    returned view looks into) as a buffer of its own, plus 64 bytes of alignment per array, a
    little for Python objects and numpy's own iterator buffer (8192 elements: a broadcasting
    ufunc, as the numpy backend's bias add, fills one). conv_net and mlp_with_view_outputs hold
    intermediates of 64 KiB or more, larger than that slack, so an array the plan does not count
    (a convolution's fresh result, a copied-out view, an intermediate kept to the end of the call)
    breaks the bound. Not counted: the numpy backend's per-kernel scratch for values inside a
    fused group (registers in C), allocated at compile time like the buffers."""
    import gc
    import tracemalloc
    g = make()
    args = inputs_for(g)
    optimized = run_pipeline(g, keep_steps=False).graph
    plan = optimized.memory_plan
    expected = evaluate(optimized, args)
    compiled = build(optimized, backend=backend, recycle=False)   # recycled outputs would hide allocations
    if backend == "c" and compiled.backend != "c":
        pytest.skip("no C compiler")
    compiled(*args)                                # the first call's one-time work
    gc.collect()
    peaks = []
    for _ in range(3):     # the least of three: tracemalloc also counts other threads' allocations
        outs = None
        tracemalloc.start()
        try:
            outs = compiled(*args)
            peaks.append(tracemalloc.get_traced_memory()[1])
        finally:
            tracemalloc.stop()
    during_call = min(peaks)
    for out, v in zip(outs, optimized.outputs):
        np.testing.assert_allclose(out, expected[v.id], rtol=1e-4, atol=1e-4)
    spec = compiled.current
    arrays = len(plan.buffers) + len(outs)
    held = spec.memory["bytes"] + during_call
    assert held <= plan.peak_bytes_after + 64 * arrays + PYTHON_SLACK + UFUNC_BUFFER, \
        f"the call held {held} bytes; the plan says {plan.peak_bytes_after}"
    assert not spec.copy_outputs, "a view of an intermediate is returned, not copied"
