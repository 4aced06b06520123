"""engine/codegen/straight_line.py on its own: one specialization's schedule as one generated
Python function — the same numbers as the interpreter, a fresh array per output per call, a
local deleted after its last reader, an input of another layout conformed where it is first
needed."""
import re

import numpy as np
import pytest

from engine.codegen import cc
from engine.codegen.executor import build
from engine.ir import interpreter
from engine.ir.graph import Graph
from engine.passes import run_pipeline

pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py
BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]


def _graph():
    """An MLP layer whose hidden value is read again after a view of it is returned."""
    g = Graph("layer")
    x = g.placeholder("x", (8, 6), np.float32)
    w1 = g.placeholder("w1", (6, 5), np.float32, role="param")
    b1 = g.placeholder("b1", (5,), np.float32, role="param")
    w2 = g.placeholder("w2", (5, 3), np.float32, role="param")
    h = g.call("relu", g.call("addmm", b1, x, w1))
    g.output(g.call("mean", g.call("tanh", g.call("matmul", h, w2))), g.call("transpose", h, dim0=0, dim1=1))
    return g


def _args(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s).astype(np.float32) for s in [(8, 6), (6, 5), (5,), (5, 3)]]


@pytest.mark.parametrize("backend", BACKENDS)
def test_the_generated_function_computes_what_the_interpreter_does(backend):
    g = _graph()
    compiled = build(run_pipeline(g).graph, backend=backend)
    source = compiled.current.run_source
    assert source.startswith("def run(a0, a1, a2, a3):") and "return [" in source
    for seed in range(3):
        for got, want in zip(compiled(*_args(seed)), interpreter.run(g, _args(seed))):
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("backend", BACKENDS)
def test_outputs_are_fresh_each_call_and_a_dead_local_is_deleted(backend):
    compiled = build(run_pipeline(_graph()).graph, backend=backend)
    first, second = compiled(*_args()), compiled(*_args())
    assert all(a is not b and not np.shares_memory(a, b) for a, b in zip(first, second))
    lines = compiled.current.run_source.splitlines()
    # the hidden value's local goes once its last reader ran; nothing reads a deleted name
    deletions = [(i, name.strip()) for i, line in enumerate(lines) if line.strip().startswith("del ")
                 for name in line.strip()[4:].split(",")]
    assert deletions
    for i, name in deletions:
        assert not any(re.search(rf"\b{name}\b", line) for line in lines[i + 1:]), (name, lines[i + 1:])


@pytest.mark.skipif(not cc.have_compiler(), reason="a C compiler is needed for compiled kernels")
def test_an_input_of_another_layout_is_conformed_before_a_kernel_reads_it():
    g = _graph()
    compiled = build(run_pipeline(g).graph, backend="c")
    assert "conform" in compiled.current.run_source        # the bias goes to a kernel by address
    args = _args()
    args[2] = np.repeat(args[2], 2)[::2]                   # the same values, strided
    assert args[2].strides != (4,)
    for got, want in zip(compiled(*args), interpreter.run(g, args)):
        np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-6)
