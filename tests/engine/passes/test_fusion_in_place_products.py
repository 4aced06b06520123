"""A BLAS product written straight into the array of the epilogue value that replaces it, the
epilogue then running in place (units._products_in_place): only where every element is read
before the same element is written, checked here on both backends against the interpreter, with
the memory plan and the executor's arrays agreeing that the product has no memory of its own."""
import numpy as np
import pytest

from engine.codegen import cc
from engine.codegen.executor import build
from engine.ir.units import in_place_products, plan_units
from engine.ir import Graph, interpreter
from engine.passes import run_pipeline
from engine.record.snapshots import pass_snapshots

BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]

pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py


def compiled_like_the_interpreter(g: Graph, backend: str):
    """(the optimized graph, the compiled graph), after checking two calls against the interpreter."""
    rng = np.random.default_rng(1)
    args = [rng.standard_normal(v.shape).astype(v.dtype) for v in g.inputs]
    want = interpreter.run(g, args)
    optimized = run_pipeline(g, keep_steps=False).graph
    compiled = build(optimized, backend=backend)
    for _ in range(2):               # the second call runs over the same buffers and output pool
        got = compiled(*args)
        for a, b in zip(got, want):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    return optimized, compiled


def layer(op="addmm", returned=True):
    """relu(x @ w + b) read by a second product, and returned too when `returned` (as a training
    forward returns an activation its backward saves)."""
    g = Graph("layer")
    x = g.placeholder("x", (6, 5))
    w = g.placeholder("w", (5, 7), role="param")
    v = g.placeholder("v", (7, 3), role="param")
    if op == "addmm":
        p = g.call("addmm", g.placeholder("b", (7,), role="param"), x, w)
    else:
        p = g.call("matmul", x, w)
    h = g.call("relu", p)
    out = g.call("matmul", h, v)
    g.output([out, h] if returned else [out])
    return g, p, h


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("op", ["addmm", "matmul"])
@pytest.mark.parametrize("returned", [True, False])
def test_the_product_is_written_into_its_relu_and_has_no_memory_of_its_own(backend, op, returned):
    g, p, h = layer(op, returned)
    optimized, compiled = compiled_like_the_interpreter(g, backend)
    assert in_place_products(plan_units(optimized, {n.id: n for n in optimized.nodes})) == {p.id: h.id}
    assert p.id not in {iv.value for iv in optimized.memory_plan.intervals}
    spec = compiled.current
    assert p.id not in spec.arrays and p.id not in spec.fresh
    assert (h.id in spec.fresh) == returned and (h.id in spec.arrays) != returned
    notes = pass_snapshots(run_pipeline(g))[-1]["notes"]
    assert any(n["node"] == p.id and "in place" in n["reason"] for n in notes)


def two_readers():
    """relu(p) and tanh(p) both returned: writing relu's result over p would corrupt tanh's read in
    the numpy backend, which runs the epilogue node by node."""
    g = Graph("two_readers")
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 8), role="param")
    p = g.call("matmul", x, w)
    g.output(g.call("relu", p), g.call("tanh", p))
    return g


def variance_of_stored_value():
    """exp(p) is stored and its variance taken: var's kernel reads its loop twice, the second time
    after the first pass stored exp(p), so p must keep its own memory."""
    g = Graph("var")
    x = g.placeholder("x", (5, 4))
    w = g.placeholder("w", (4, 6), role="param")
    e = g.call("exp", g.call("mul", g.call("matmul", x, w), 0.3))
    g.output(e, g.call("var", e, dim=(0,)))
    return g


def product_read_elsewhere():
    """The product is also read by a later group (a transpose): it must stay as it was."""
    g = Graph("read_elsewhere")
    x = g.placeholder("x", (4, 6))
    w = g.placeholder("w", (6, 4), role="param")
    p = g.call("matmul", x, w)
    g.output(g.call("tanh", p), g.call("transpose", p, dim0=0, dim1=1))
    return g


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("make", [two_readers, variance_of_stored_value, product_read_elsewhere],
                         ids=lambda f: f.__name__)
def test_a_product_that_is_not_safe_to_overwrite_keeps_its_memory(make, backend):
    optimized, compiled = compiled_like_the_interpreter(make(), backend)
    assert in_place_products(plan_units(optimized, {n.id: n for n in optimized.nodes})) == {}


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_new_input_shape_respecializes_with_the_product_in_place(backend):
    """A new batch size compiles another specialization (without a memory plan: private arrays),
    where the product is still written into its relu's array."""
    g, p, h = layer("addmm", returned=True)
    optimized, compiled = compiled_like_the_interpreter(g, backend)
    rng = np.random.default_rng(2)
    args = [rng.standard_normal((3, 5)).astype(np.float32)] + \
        [rng.standard_normal(v.shape).astype(np.float32) for v in g.inputs[1:]]
    for _ in range(2):
        for a, b in zip(compiled(*args), interpreter.run(g, args)):
            np.testing.assert_allclose(a, b, rtol=1e-5, atol=1e-6)
    assert compiled.retraces and compiled.current.in_place == {p.id: h.id}
