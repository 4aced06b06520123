"""Codegen: every elementwise/reduce op has a C and a numpy rendering, and every op compiled in
every fusion position (head, middle, reduction tail, broadcast, non-contiguous, size-1, empty,
float64) equals the reference interpreter, on both backends."""
import linecache

import numpy as np
import pytest

from engine.codegen import cc
from engine.codegen.c_render import C_EXPR, C_REDUCE, render_module
from engine.codegen.executor import build
from engine.codegen.kernel import lower
from engine.codegen.numpy_render import NP_COMPOSITE, NP_EXPR
from engine.ir import interpreter
from engine.ir.graph import Graph
from engine.ir.schedule import FusionGroup
from engine.ops.registry import ELEMENTWISE, OPS, REDUCE
from engine.passes import run_pipeline


pytestmark = pytest.mark.usefixtures("kernel_cache")       # tests/engine/conftest.py


BACKENDS = ["c", "numpy"] if cc.have_compiler() else ["numpy"]     # both, unless no compiler here
needs_cc = pytest.mark.skipif(not cc.have_compiler(), reason="no C compiler")

# op -> list of (input domains, attrs). Domains: x in [-2, 2], pos in [0.5, 2], bool, int in [-3, 3],
# int_nonzero in [-3, 3] without 0.
OP_CASES = {
    "add": [(("x", "x"), {})], "sub": [(("x", "x"), {})], "mul": [(("x", "x"), {})],
    "div": [(("x", "pos"), {})], "div_scalar": [(("x",), {"divisor": 3}), (("int",), {"divisor": 0.25})],
    "maximum": [(("x", "x"), {})], "minimum": [(("x", "x"), {})],
    "pow": [(("pos", "x"), {})],
    "pow_scalar": [(("x",), {"exponent": 3}), (("pos",), {"exponent": 2.5}), (("x",), {"exponent": 2})],
    "reciprocal": [(("x",), {}), (("int_nonzero",), {})],
    "neg": [(("x",), {})], "exp": [(("x",), {})], "log": [(("pos",), {})], "sqrt": [(("pos",), {})],
    "abs": [(("x",), {})], "tanh": [(("x",), {})], "sigmoid": [(("x",), {})], "relu": [(("x",), {})],
    "erf": [(("x",), {})], "sin": [(("x",), {})], "cos": [(("x",), {})],
    "floor": [(("x",), {}), (("int",), {})], "ceil": [(("x",), {})], "round": [(("x",), {})],
    # (integer divisors are nonzero: integer // 0 and % 0 raise in the registry's forward, as in PyTorch)
    "remainder": [(("x", "x"), {}), (("int", "int_nonzero"), {})],
    "fmod": [(("x", "x"), {}), (("int", "int_nonzero"), {})],
    "floor_divide": [(("x", "pos"), {}), (("int", "int_nonzero"), {})],
    "gelu": [(("x",), {"approximate": "none"}), (("x",), {"approximate": "tanh"})],
    "softplus": [(("x",), {"beta": 1.0, "threshold": 20.0}), (("x",), {"beta": 2.0, "threshold": 1.0})],
    "leaky_relu": [(("x",), {"negative_slope": 0.1}), (("x",), {"negative_slope": -0.3})],
    "silu": [(("x",), {})],
    "hardtanh": [(("x",), {"min_val": -1.0, "max_val": 1.0}), (("x",), {"min_val": 0.0, "max_val": 1.5})],
    "hardswish": [(("x",), {})], "hardsigmoid": [(("x",), {})], "elu": [(("x",), {"alpha": 0.5}),
    (("x",), {"alpha": 1.6732632423543772, "scale": 1.0507009873554805, "input_scale": 1.0})],
    "celu": [(("x",), {"alpha": 0.7})], "log_sigmoid": [(("x",), {})], "mish": [(("x",), {})],
    "isinf": [(("x",), {})], "isposinf": [(("x",), {})], "isneginf": [(("x",), {})], "isfinite": [(("x",), {})],
    "clamp": [(("x",), {"min": -0.5, "max": 0.5}), (("x",), {"min": 0.1, "max": None})],
    "nan_to_num": [(("nonfinite",), {"nan": 0.0, "posinf": None, "neginf": None}),
                   (("nonfinite",), {"nan": 2.5, "posinf": 7.0, "neginf": -1.0})],
    "clamp_tensor": [(("x", "x", "x"), {"bounds_are": "both"}), (("x", "x"), {"bounds_are": "min", "fn": "clamp_min"}),
                     (("x", "x"), {"bounds_are": "max"})],
    "tanh_backward": [(("x", "x"), {})], "sigmoid_backward": [(("x", "x"), {})],
    "threshold_backward": [(("x", "x"), {"threshold": 0.0}), (("x", "x"), {"threshold": 0.5})],
    "masked_fill": [(("x", "bool"), {"value": 0.5})],
    "clone": [(("x",), {})], "stop_gradient": [(("x",), {})],
    "to_dtype": [(("x",), {"dtype": "float64"}), (("x",), {"dtype": "int32"})],
    "gt": [(("x", "x"), {})], "lt": [(("x", "x"), {})], "ge": [(("x", "x"), {})],
    "le": [(("x", "x"), {})], "eq": [(("int", "int"), {})], "ne": [(("int", "int"), {})],
    "sign": [(("x",), {})],
    "bitwise_and": [(("int", "int"), {})], "bitwise_or": [(("bool", "bool"), {})],
    "bitwise_xor": [(("int", "int"), {})], "bitwise_not": [(("int",), {}), (("bool",), {})],
    "isnan": [(("x",), {})],
    "where": [(("bool", "x", "x"), {})],
    "dropout": [(("bool_as_x", "bool"), {"p": 0.25})],
}

REDUCE_CASES = {
    "sum": [{"dim": (1,), "keepdim": False}, {"dim": None, "keepdim": False}, {"dim": (0,), "keepdim": True}],
    "mean": [{"dim": (1,), "keepdim": False}, {"dim": (0,), "keepdim": True}],
    "sum_to_size": [{"shape": (1, 4)}, {"shape": (3, 1)}],
    "max": [{"dim": 1, "keepdim": False}, {"dim": None, "keepdim": False}],
    "min": [{"dim": 0, "keepdim": True}],
    "amax": [{"dim": (0, 1), "keepdim": False}], "amin": [{"dim": (1,), "keepdim": True}],
    "argmax": [{"dim": 1, "keepdim": False}, {"dim": None, "keepdim": False}],
    "argmin": [{"dim": 0, "keepdim": False}],
    "var": [{"dim": (1,), "correction": 1, "keepdim": False}, {"dim": None, "correction": 0, "keepdim": False}],
    "std": [{"dim": (0,), "correction": 1, "keepdim": True}],
    "logsumexp": [{"dim": (1,), "keepdim": False}],
    "norm": [{"p": 2.0, "dim": (1,), "keepdim": False}, {"p": 2.0, "dim": None, "keepdim": True},
             {"p": 1.0, "dim": (0,), "keepdim": False}, {"p": 3.0, "dim": (1,), "keepdim": True},
             {"p": float("inf"), "dim": (1,), "keepdim": False}, {"p": float("-inf"), "dim": None, "keepdim": False},
             {"p": 0.0, "dim": (1,), "keepdim": False}, {"p": 0.5, "dim": (1,), "keepdim": False}],
}


def test_every_elementwise_and_reduce_op_has_every_rendering():
    """The 'every op has every rule' check for codegen: adding an op without C/numpy forms fails."""
    for name, op in OPS.items():
        if op.kind == ELEMENTWISE:
            assert name in C_EXPR, f"elementwise op {name!r} has no C expression (engine/codegen/c_render.py)"
            assert name in NP_EXPR or name in NP_COMPOSITE, f"{name!r} has no numpy rendering"
            assert name in OP_CASES, f"{name!r} has no codegen test case (OP_CASES)"
        if op.kind == REDUCE:
            assert name in C_REDUCE, f"reduction {name!r} has no C accumulator (C_REDUCE)"
            assert name in NP_EXPR or name in NP_COMPOSITE, f"{name!r} has no numpy rendering"
            assert name in REDUCE_CASES, f"{name!r} has no codegen test case (REDUCE_CASES)"


def _data(domain, shape, rng, dtype):
    if domain == "x":
        return rng.uniform(-2, 2, shape).astype(dtype)
    if domain == "pos":
        return rng.uniform(0.5, 2, shape).astype(dtype)
    if domain == "nonfinite":         # NaN and both infinities among the numbers
        return rng.choice(np.array([np.nan, np.inf, -np.inf, 1.5, -0.25, 0.0]), shape).astype(dtype)
    if domain == "bool":
        return rng.random(shape) > 0.5
    if domain == "bool_as_x":
        return rng.uniform(-2, 2, shape).astype(dtype)
    if domain == "int_nonzero":
        return (rng.integers(1, 4, shape) * rng.choice([-1, 1], shape)).astype(np.int64)
    return rng.integers(-3, 4, shape).astype(np.int64)


def _dtype_of(domain, fdt):
    return {"bool": np.bool_, "int": np.int64, "int_nonzero": np.int64}.get(domain, fdt)


POSITIONS = {  # position -> (shape of input k, how inputs reach the op, float dtype)
    "head": (lambda k: (3, 4), "direct", np.float32),
    "middle": (lambda k: (3, 4), "pre", np.float32),
    "reduction_tail": (lambda k: (3, 4), "direct", np.float32),
    "broadcast": (lambda k: [(3, 1), (1, 4), (4,)][k], "direct", np.float32),
    "noncontiguous": (lambda k: (4, 3), "transpose", np.float32),
    "size1": (lambda k: (1, 5), "direct", np.float32),
    "empty": (lambda k: (0, 3), "direct", np.float32),
    "float64": (lambda k: (2, 3), "pre", np.float64),
}


def _position_graph(position, rng):
    shape_of, feed, fdt = POSITIONS[position]
    g = Graph(f"ops_{position}")
    args = []
    for name, cases in OP_CASES.items():
        for domains, attrs in cases:
            ins = []
            for k, dom in enumerate(domains):
                shape = shape_of(k)
                dt = _dtype_of(dom, fdt)
                p = g.placeholder(f"{name}_{k}", shape, dt)
                args.append(_data(dom, shape, rng, dt))
                v = p
                if feed == "transpose":
                    v = g.call("transpose", p, dim0=0, dim1=1)
                elif feed == "pre" and dom in ("x", "pos"):
                    v = g.call("mul", p, 0.75)
                ins.append(v)
            out = g.call(name, *ins, **attrs)
            if position == "reduction_tail":
                g.output(g.outputs + [g.call("sum", out, dim=(1,))])
            else:
                g.output(g.outputs + [g.call("add", g.call("mul", out, 1.5), 0.25)])
    return g, args


def _check(graph, args, backend):
    expected = interpreter.run(graph, args)
    optimized = run_pipeline(graph).graph
    compiled = build(optimized, backend=backend)
    got = compiled(*args)
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected)):
        assert a.shape == b.shape, (i, graph.outputs[i])
        tol = 1e-5 if b.dtype == np.float32 else 1e-9
        np.testing.assert_allclose(a, b, rtol=tol * 4, atol=tol, err_msg=f"output {i} ({graph.outputs[i].id})")
    return compiled


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("position", list(POSITIONS))
def test_every_op_in_every_fusion_position(position, backend):
    rng = np.random.default_rng(0)
    graph, args = _position_graph(position, rng)
    compiled = _check(graph, args, backend)
    assert compiled.backend == backend
    assert all(k["language"] == backend for k in compiled.kernels)
    if backend == "c" and position in ("head", "middle"):
        # fused: most ops share a kernel with the mul/add after them
        assert any(len(k["nodes"]) >= 3 for k in compiled.kernels)


@pytest.mark.parametrize("backend", BACKENDS)
def test_every_reduction_after_an_elementwise_chain(backend):
    rng = np.random.default_rng(1)
    g = Graph("reductions")
    args = []
    for name, cases in REDUCE_CASES.items():
        for attrs in cases:
            p = g.placeholder(f"{name}_x", (3, 4), np.float32)
            args.append(rng.uniform(-2, 2, (3, 4)).astype(np.float32))
            g.output(g.outputs + [g.call(name, g.call("tanh", g.call("mul", p, 1.25)), **attrs)])
    p = g.placeholder("nan_x", (2, 3), np.float32)           # NaN propagates through max and sum
    args.append(np.array([[1, np.nan, 3], [4, 5, 6]], np.float32))
    g.output(g.outputs + [g.call("amax", p, dim=(1,)), g.call("sum", p, dim=(1,)), g.call("argmax", p, dim=1)])
    _check(g, args, backend)


@needs_cc
def test_tanh_approximation_is_close_to_libm_over_the_line():
    x = np.concatenate([np.linspace(-12, 12, 200001, dtype=np.float32),
                        np.array([0, -0.0, 1e-6, -3e-4, np.inf, -np.inf, np.nan], np.float32)])
    g = Graph("tanh")
    p = g.placeholder("x", x.shape, np.float32)
    g.output(g.call("tanh", p))
    (got,) = build(run_pipeline(g).graph, backend="c")(x)
    np.testing.assert_allclose(got, np.tanh(x), rtol=2e-6, atol=1e-7)


def test_source_is_readable_with_node_ids_and_user_lines():
    linecache.cache["<dagscope>"] = (20, None, ["y = torch.tanh(x * w)\n"], "<dagscope>")
    g = Graph("readable")
    x = g.placeholder("x", (8, 8), np.float32)
    g.current_line = 1
    y = g.call("tanh", g.call("mul", x, 2.0))
    g.output(y)
    group = FusionGroup("fused_mul_tanh_0", "elementwise", [y.producer.inputs[0].id, y.id],
                        [x.id, y.producer.inputs[0].producer.inputs[1].id], [y.id])
    src = render_module([lower(g, group)])
    assert "void fused_mul_tanh_0(const float *in0, float *out0)" in src
    assert f"{y.id} = tanh(" in src and "line 1: y = torch.tanh(x * w)" in src
    assert "for (int64_t i0 = 0; i0 < 64; i0++)" in src       # contiguous 8x8 merged into one loop


@pytest.mark.parametrize("backend", BACKENDS)
def test_python_scalars_inlined_into_every_kind_of_op(backend):
    g = Graph("scalars")
    x = g.placeholder("x", (5, 3), np.float32)
    i = g.placeholder("i", (5, 3), np.int64)
    outs = [g.call("where", g.call("gt", x, 0.0), x, 0.0), g.call("pow", x, 2.0), g.call("maximum", x, 0.5),
            g.call("div", i, 2), g.call("where", g.call("ne", i, 1), i, 0), g.call("mul", i, 1.5),
            g.call("clamp", i, min=0, max=2), g.call("add", g.call("sum", i, dim=(1,)), 3)]
    g.output(outs)
    rng = np.random.default_rng(2)
    _check(g, [rng.uniform(-2, 2, (5, 3)).astype(np.float32), rng.integers(-3, 4, (5, 3))], backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_rounding_and_python_division_edge_cases(backend):
    a = np.array([2.5, -2.5, 0.5, 1.5, -7.0, 7.0, -0.0, 5.3, np.inf, np.nan], np.float32)
    b = np.array([1.0, 2.0, -2.0, -2.0, 2.0, -2.0, 3.0, 0.0, 2.0, 1.0], np.float32)
    # (no integer divisor is 0: integer // 0 and % 0 raise in PyTorch, so no kernel result stands for them)
    ia, ib = np.array([-7, 7, -7, 7, 5, 0]), np.array([2, -2, -2, 2, -3, 3])
    g = Graph("edges")
    x, y = g.placeholder("a", a.shape, np.float32), g.placeholder("b", b.shape, np.float32)
    i, j = g.placeholder("ia", ia.shape, np.int64), g.placeholder("ib", ib.shape, np.int64)
    g.output([g.call("round", x), g.call("remainder", x, y), g.call("floor_divide", x, y),
              g.call("remainder", i, j), g.call("floor_divide", i, j)])
    with np.errstate(all="ignore"):
        expected = [np.round(a), np.remainder(a, b), np.floor_divide(a, b), np.remainder(ia, ib),
                    np.floor_divide(ia, ib)]
        got = build(run_pipeline(g).graph, backend=backend)(a, b, ia, ib)
    for e, o in zip(expected, got):
        np.testing.assert_array_equal(o, e)
        np.testing.assert_array_equal(np.signbit(o), np.signbit(e))     # -0.0 where numpy gives it


def compiled_as_displayed(kernels) -> None:
    """The sandbox compiles C rendered from `rebuild(describe(kernels))`: every kernel the generator
    makes must pass those checks and come out as the C the Kernels tab shows, less its comments
    and with generated names (k0, k1...)."""
    from engine.codegen.c_render import render_kernel
    from engine.codegen.description import describe, rebuild
    rebuilt = rebuild(describe(kernels))
    for i, (shown, compiled) in enumerate(zip(kernels, rebuilt)):
        own = {f"/* {c} */" for c in [st.comment for st in shown.steps] + [shown.library_comment] +
               [shown.reduction.comment if shown.reduction else ""] if c}
        lines = [line for line in render_kernel(shown).splitlines()
                 if line.strip() not in own and not line.startswith(f"/* {shown.name}: nodes")]
        expected = "\n".join(lines).replace(f"void {shown.name}(", f"void k{i}(", 1) + "\n"
        assert render_kernel(compiled) == expected
        assert own and not any(c in render_kernel(compiled) for c in own)


@pytest.mark.parametrize("position", list(POSITIONS))
def test_generated_kernels_pass_the_sandbox_broker_checks_and_compile_as_displayed(position):
    graph, _ = _position_graph(position, np.random.default_rng(0))
    optimized = run_pipeline(graph).graph
    kernels = []
    for grp in optimized.fusion_groups:
        if grp.kind != "extern":
            try:
                kernels.append(lower(optimized, grp))
            except Exception:        # noqa: BLE001 - groups the executor splits up are not kernels
                continue
    assert kernels
    compiled_as_displayed(kernels)


@pytest.mark.parametrize("rows", [64, 100_000])
def test_sums_over_the_batch_dim_are_accurate_short_and_long(rows):
    """Short sums over an outer dim accumulate in the output row; long ones in double."""
    g = Graph("colsum")
    x = g.placeholder("x", (rows, 8), np.float32)
    g.output(g.call("sum", x, dim=(0,)), g.call("mean", x, dim=(0,), keepdim=True))
    optimized = run_pipeline(g).graph
    kernels = [lower(optimized, grp) for grp in optimized.fusion_groups]
    assert [k.accumulate_in_output for k in kernels] == [rows <= 4096] * 2
    data = np.random.default_rng(3).uniform(0, 1, (rows, 8)).astype(np.float32)
    for backend in BACKENDS:
        total, mean = build(optimized, backend=backend)(data)
        # C sums in double; the numpy backend is numpy's own float32 sum (itself ~1e-5 off here)
        tol = 1e-6 if backend == "c" else 1e-4
        np.testing.assert_allclose(total, data.astype(np.float64).sum(0), rtol=tol)
        np.testing.assert_allclose(mean, data.astype(np.float64).mean(0, keepdims=True), rtol=tol)


@pytest.mark.parametrize("backend", BACKENDS)
def test_softmax_and_log_softmax_kernels(backend):
    """softmax/log_softmax get kernels of their own (max, sum of exp(x - max), write), along any dim,
    on transposed inputs, with -inf and nan rows as the registry's forward treats them."""
    g = Graph("softmax")
    x = g.placeholder("x", (5, 7), np.float32)
    xt = g.call("transpose", g.placeholder("xt", (7, 5), np.float32), dim0=0, dim1=1)
    outs = []
    for v in (x, xt):
        for dim in (0, 1, -1):
            outs += [g.call("softmax", v, dim=dim), g.call("log_softmax", v, dim=dim)]
    outs.append(g.call("log_softmax", g.placeholder("x64", (3, 4), np.float64), dim=1))
    g.output(outs)
    rng = np.random.default_rng(4)
    a = (rng.standard_normal((5, 7)) * 10).astype(np.float32)
    a[1, :] = -np.inf
    a[2, 3] = np.nan
    with np.errstate(all="ignore"):
        compiled = _check(g, [a, rng.standard_normal((7, 5)).astype(np.float32), rng.standard_normal((3, 4))],
                          backend)
    names = [k["name"] for k in compiled.kernels]
    assert sum("softmax" in n for n in names) == len(outs), names


def test_a_reduction_after_another_groups_product_is_not_named_an_epilogue():
    """`_epilogue` names the elementwise tail of the same group's matmul; a lone reduction whose
    group merely follows a matmul group keeps its group's name."""
    from engine.ir.units import plan_units
    g = Graph("after_product")
    x = g.placeholder("x", (8, 16))
    w = g.placeholder("w", (16, 4), role="param")
    g.output(g.call("matmul", x, w), g.call("sum_to_size", x, shape=(16,)))
    optimized = run_pipeline(g, keep_steps=False).graph
    units = plan_units(optimized, {n.id: n for n in optimized.nodes})
    assert [u.kind for u in units] == ["matmul", "kernel"]
    assert not units[1].name.endswith("_epilogue")
    product = product_with_relu_sum()
    optimized = run_pipeline(product, keep_steps=False).graph
    names = [u.name for u in plan_units(optimized, {n.id: n for n in optimized.nodes}) if u.kind == "kernel"]
    assert any(name.endswith("_epilogue") for name in names)


def product_with_relu_sum():
    g = Graph("product_epilogue")
    x = g.placeholder("x", (8, 16))
    w = g.placeholder("w", (16, 4), role="param")
    g.output(g.call("sum", g.call("relu", g.call("matmul", x, w))))
    return g
