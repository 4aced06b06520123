"""The hand-lowered C kernels (nll_loss forward, gather_backward, native_layer_norm) against the
reference interpreter: reductions, ignored targets, index dtypes, transposed inputs, bounds errors,
optional affine parameters."""
import numpy as np
import pytest

from engine.codegen import cc
from engine.codegen.executor import build
from engine.ir import interpreter
from engine.ir.graph import Graph

pytestmark = [pytest.mark.skipif(not cc.have_compiler(), reason="no C compiler"),
              pytest.mark.usefixtures("kernel_cache")]            # tests/engine/conftest.py


def _library_kernels(compiled) -> list[str]:
    return [u.kernel.library for u in compiled.current.units if u.kind == "kernel" and u.kernel.library]


def _nll_graph(n, c, reduction, ignore_index=-100, target_dtype=np.int64, dtype=np.float32, transposed=False):
    g = Graph("nll")
    logp = g.placeholder("logp", (c, n) if transposed else (n, c), dtype)
    target = g.placeholder("target", (n,), target_dtype)
    if transposed:
        logp = g.call("transpose", logp, dim0=0, dim1=1)
    g.output(g.call("nll_loss", logp, target, reduction=reduction, ignore_index=ignore_index))
    return g


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nll_loss_kernel_matches_the_interpreter(reduction, dtype):
    rng = np.random.default_rng(0)
    g = _nll_graph(13, 7, reduction, dtype=dtype)
    compiled = build(g, backend="c")
    assert _library_kernels(compiled) == ["nll_loss"]
    for _ in range(2):
        logp = rng.standard_normal((13, 7)).astype(dtype)
        target = rng.integers(0, 7, 13)
        (got,), (want,) = compiled(logp, target), interpreter.run(g, [logp, target])
        assert got.shape == want.shape and got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=1e-6)


def test_nll_loss_kernel_ignored_targets_int32_and_a_transposed_input():
    rng = np.random.default_rng(1)
    g = _nll_graph(9, 5, "mean", ignore_index=2, target_dtype=np.int32, transposed=True)
    compiled = build(g, backend="c", input_layouts=None)
    logp = rng.standard_normal((5, 9)).astype(np.float32)
    target = np.array([2, 0, 4, 2, 1, 3, 2, 0, 1], np.int32)          # three ignored rows
    (got,), (want,) = compiled(logp, target), interpreter.run(g, [logp, target])
    np.testing.assert_allclose(got, want, rtol=1e-6)
    everything_ignored = np.full(9, 2, np.int32)                        # 0 / 0, as numpy gives
    with np.errstate(invalid="ignore"):
        assert np.isnan(compiled(logp, everything_ignored)[0])


@pytest.mark.parametrize("bad", [5, -1, 100])
def test_nll_loss_kernel_raises_for_a_target_out_of_range(bad):
    g = _nll_graph(4, 5, "mean")
    compiled = build(g, backend="c")
    logp = np.zeros((4, 5), np.float32)
    with pytest.raises(IndexError, match=f"Target {bad} is out of bounds"):
        compiled(logp, np.array([0, 1, bad, 2]))
    with pytest.raises(IndexError):
        interpreter.run(g, [logp, np.array([0, 1, bad, 2])])
    assert compiled(logp, np.array([0, 1, 2, 3]))[0] == 0.0            # the status was reset


def _gather_backward_graph(dim, shape, index_dtype=np.int64):
    g = Graph("gather_backward")
    row = tuple(1 if i == dim % 2 else s for i, s in enumerate(shape))
    grad = g.placeholder("grad", row, np.float32)
    index = g.placeholder("index", row, index_dtype)
    g.output(g.call("gather_backward", grad, index, dim=dim, shape=shape))
    return g


@pytest.mark.parametrize("dim", [1, 0, -1])
def test_gather_backward_kernel_matches_the_interpreter(dim):
    rng = np.random.default_rng(2)
    shape = (6, 4)
    g = _gather_backward_graph(dim, shape, np.int32 if dim == 0 else np.int64)
    compiled = build(g, backend="c")
    assert _library_kernels(compiled) == ["gather_backward"]
    d = dim % 2
    row = tuple(1 if i == d else s for i, s in enumerate(shape))
    for _ in range(2):            # the output buffer is reused: the zeros must be rewritten
        grad = rng.standard_normal(row).astype(np.float32)
        grad.flat[0] = -0.0
        index = rng.integers(-shape[d], shape[d], row).astype(g.placeholders[1].out.dtype)
        (got,), (want,) = compiled(grad, index), interpreter.run(g, [grad, index])
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.signbit(got), np.signbit(want))   # -0.0 + 0 is +0.0


def test_gather_backward_kernel_raises_for_an_index_out_of_range():
    g = _gather_backward_graph(1, (3, 4))
    compiled = build(g, backend="c")
    grad = np.ones((3, 1), np.float32)
    with pytest.raises(IndexError, match="index 4 is out of bounds for axis 1 with size 4"):
        compiled(grad, np.array([[0], [4], [1]]))
    with pytest.raises(IndexError):
        interpreter.run(g, [grad, np.array([[0], [4], [1]])])


def test_uncovered_cases_stay_library_ops():
    g = Graph("weighted")
    logp = g.placeholder("logp", (4, 3), np.float32)
    target = g.placeholder("target", (4,), np.int64)
    weight = g.placeholder("weight", (3,), np.float32)
    g.output(g.call("nll_loss", logp, target, weight))
    compiled = build(g, backend="c")
    assert _library_kernels(compiled) == []
    args = [np.log(np.full((4, 3), 1 / 3, np.float32)), np.array([0, 1, 2, 1]), np.arange(1, 4, dtype=np.float32)]
    np.testing.assert_allclose(compiled(*args)[0], interpreter.run(g, args)[0], rtol=1e-6)


def _layer_norm_graph(shape, normalized_ndim, dtype, weight=True, bias=True, transposed=False):
    g = Graph("layer_norm")
    x = g.placeholder("x", shape[::-1] if transposed else shape, dtype)
    if transposed:
        x = g.call("permute", x, dims=tuple(range(len(shape)))[::-1])
    params = [g.placeholder(name, shape[len(shape) - normalized_ndim:], dtype)
              for name, present in (("weight", weight), ("bias", bias)) if present]
    g.output(g.call("native_layer_norm", x, *params, normalized_ndim=normalized_ndim, eps=1e-5,
                    has_weight=weight, has_bias=bias))
    return g


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,normalized_ndim,weight,bias", [
    ((5, 8), 1, True, True), ((2, 3, 4), 2, False, False), ((3, 6), 1, True, False), ((7,), 1, False, True),
    ((0, 4), 1, True, True)])
def test_layer_norm_kernel_matches_the_interpreter(shape, normalized_ndim, weight, bias, dtype):
    rng = np.random.default_rng(3)
    g = _layer_norm_graph(shape, normalized_ndim, dtype, weight, bias)
    compiled = build(g, backend="c")
    assert _library_kernels(compiled) == ["native_layer_norm"]
    for _ in range(2):
        args = [(rng.standard_normal(p.out.shape) * 3 + 1).astype(dtype) for p in g.placeholders]
        (got,), (want,) = compiled(*args), interpreter.run(g, args)
        assert got.shape == want.shape and got.dtype == want.dtype
        tol = 1e-5 if dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def test_layer_norm_of_a_strided_input_stays_correct():
    """A permuted input is either made row-major for the kernel or left to the registry's forward."""
    rng = np.random.default_rng(4)
    g = _layer_norm_graph((4, 6), 1, np.float32, transposed=True)
    compiled = build(g, backend="c")
    args = [rng.standard_normal(p.out.shape).astype(np.float32) for p in g.placeholders]
    np.testing.assert_allclose(compiled(*args)[0], interpreter.run(g, args)[0], rtol=1e-5, atol=1e-6)


def test_library_kernels_pass_the_sandbox_broker_checks_and_compile_as_displayed():
    from tests.engine.codegen.test_codegen import compiled_as_displayed
    units = build(_nll_graph(4, 3, "mean"), backend="c").current.units + \
        build(_gather_backward_graph(1, (3, 4)), backend="c").current.units + \
        build(_layer_norm_graph((3, 4), 1, np.float32), backend="c").current.units + \
        build(_nll_graph(4, 3, "none", transposed=True), backend="c").current.units
    kernels = [u.kernel for u in units if u.kind == "kernel"]
    assert {k.library for k in kernels} >= {"nll_loss", "gather_backward", "native_layer_norm"}
    compiled_as_displayed(kernels)
