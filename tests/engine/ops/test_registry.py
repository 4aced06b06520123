"""The op registry is complete and self-consistent: every op has every rule, shape/dtype rules agree
with the numpy forwards, vjps use only registered ops, and `kind` tells the truth."""
from __future__ import annotations

import numpy as np
import pytest

from engine.ops import KINDS, OPS
from engine.ops.builder import NUMPY, Builder
from engine.ops.registry import ELEMENTWISE, REDUCE, Spec
from engine.tensor import Tensor, apply
from tests.engine.op_cases import CASES

ALL_OPS = sorted(OPS)


def _cases(name):
    return [pytest.param(name, c, id=f"{name}-{i}") for i, c in enumerate(CASES.get(name, []))]


def _all_cases():
    return [p for name in ALL_OPS for p in _cases(name)]


def _spec(a) -> Spec:
    return Spec(tuple(np.shape(a)), np.asarray(a).dtype)


def _as_float32(case):
    return [a.astype(np.float32) if a.dtype == np.float64 else a for a in case.inputs]


@pytest.mark.parametrize("name", ALL_OPS)
def test_every_op_has_every_rule(name):
    op = OPS[name]
    assert op.kind in KINDS
    assert callable(op.forward) and callable(op.infer)
    assert op.formula and op.rule, "the explanation card needs a formula and a rule"
    assert isinstance(op.attrs, tuple)
    assert op.saves is None or all(s == "out" or isinstance(s, int) for s in op.saves)
    for i, reads in (op.saves_for or {}).items():
        assert isinstance(i, int) and all(s == "out" or isinstance(s, int) for s in reads)
        assert op.saves is None or set(reads) <= set(op.saves), "saves_for refines saves, never adds to it"
    if op.differentiable:
        assert callable(op.vjp) and op.grad_fn, "a differentiable op needs a vjp and PyTorch's grad_fn name"
    assert CASES.get(name), f"tests/engine/op_cases.py has no sample inputs for op {name!r}"


@pytest.mark.parametrize("name,case", _all_cases())
def test_infer_agrees_with_forward(name, case):
    op = OPS[name]
    for arrays in (case.inputs, _as_float32(case)):
        out = op.run(*arrays, **case.attrs)
        assert op.infer(*(_spec(a) for a in arrays), **case.attrs) == _spec(out)
        assert set(case.attrs) <= set(op.attrs), "attrs used must be declared"


class RecordingBuilder(Builder):
    """NumpyBuilder that remembers which ops a vjp rule called."""

    def __init__(self):
        self.used: set[str] = set()

    def apply(self, name, inputs, attrs):
        self.used.add(name)
        return NUMPY.apply(name, inputs, attrs)


@pytest.mark.parametrize("name,case", [p for p in _all_cases() if OPS[p.values[0]].differentiable])
def test_vjps_are_made_of_registered_ops(name, case):
    builder = RecordingBuilder()
    out = OPS[name].run(*case.inputs, **case.attrs)
    grads = OPS[name].vjp(builder, np.ones_like(out, dtype=np.float64), *case.inputs, out, **case.attrs)
    assert len(grads) == len(case.inputs)
    assert builder.used <= set(OPS)
    for i, g in enumerate(grads):
        if i in case.diff:
            assert g is not None


@pytest.mark.parametrize("name,case", [p for p in _all_cases() if OPS[p.values[0]].kind == ELEMENTWISE])
def test_elementwise_ops_are_pure_per_element(name, case):
    """out[i] = f(broadcast inputs[i]): so fusion may put the op into any elementwise loop nest."""
    out = OPS[name].run(*case.inputs, **case.attrs)
    assert out.shape == np.broadcast_shapes(*(a.shape for a in case.inputs))
    wide = [np.broadcast_to(a, out.shape) for a in case.inputs]
    for position in list(np.ndindex(out.shape))[:7]:
        single = OPS[name].run(*(np.asarray(w[position]) for w in wide), **case.attrs)
        np.testing.assert_allclose(single, out[position], rtol=1e-12, atol=0)


def test_reductions_are_kind_reduce():
    for name in ("sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "var", "std", "logsumexp"):
        assert OPS[name].kind == REDUCE, name


@pytest.mark.parametrize("name,dtypes,attrs,expected", [
    ("add", ("int64", "int64"), {}, "int64"),
    ("add", ("int64", "float32"), {}, "float32"),
    ("add", ("float32", "float64"), {}, "float64"),
    ("mul", ("bool", "bool"), {}, "bool"),
    ("div", ("int64", "int64"), {}, "float32"),
    ("exp", ("int64",), {}, "float32"),
    ("sqrt", ("float64",), {}, "float64"),
    ("sum", ("int32",), {}, "int64"),
    ("sum", ("bool",), {}, "int64"),
    ("mean", ("float64",), {}, "float64"),
    ("gt", ("float32", "int64"), {}, "bool"),
    ("pow_scalar", ("int64",), {"exponent": 2}, "int64"),
    ("pow_scalar", ("int64",), {"exponent": 0.5}, "float32"),
    ("where", ("bool", "int64", "float32"), {}, "float32"),
    ("matmul", ("int64", "int64"), {}, "int64"),
    ("clamp", ("int64",), {"min": 0.5, "max": None}, "float32"),
    ("argmax", ("float32",), {}, "int64"),
    ("softmax", ("float64",), {"dim": 0}, "float64"),
    ("to_dtype", ("float32",), {"dtype": "float64"}, "float64"),
])
def test_dtype_rules_follow_pytorch(name, dtypes, attrs, expected):
    arrays = [np.ones((2, 2), dtype=d) for d in dtypes]
    out = OPS[name].run(*arrays, **attrs)
    assert out.dtype == np.dtype(expected)
    assert OPS[name].infer(*(_spec(a) for a in arrays), **attrs).dtype == np.dtype(expected)


def test_python_scalars_are_weakly_typed():
    f32 = Tensor(np.ones(2, np.float32))
    i64 = Tensor(np.ones(2, np.int64))
    assert (f32 + 2.5).array.dtype == np.float32
    assert (f32 * 2).array.dtype == np.float32
    assert (i64 * 2).array.dtype == np.int64
    assert (i64 * 2.5).array.dtype == np.float32
    assert (i64 / 2).array.dtype == np.float32
    assert (Tensor(np.ones(2)) * 3.0).array.dtype == np.float64


def test_registering_an_op_twice_is_an_error():
    from engine.ops.registry import register
    with pytest.raises(ValueError, match="registered twice"):
        register(OPS["add"])


def test_grad_fn_names_are_pytorchs():
    x = Tensor(np.ones((2, 3), np.float32), requires_grad=True)
    names = {
        "AddBackward0": x + 1, "MulBackward0": x * x, "SumBackward0": x.sum(), "SumBackward1": x.sum(1),
        "MeanBackward0": x.mean(), "TBackward0": x.t(), "PowBackward0": x ** 3, "ViewBackward0": x.view(6),
        "SelectBackward0": x[0], "SliceBackward0": x[:, 1:], "IndexBackward0": x[[0, 1]],
        "UnsqueezeBackward0": x.unsqueeze(0), "SqueezeBackward1": x.unsqueeze(0).squeeze(0),
        "MaxBackward1": x.max(), "MaxBackward0": x.max(1).values, "SoftmaxBackward0": x.softmax(1),
        "ToCopyBackward0": x.double(), "ExpandBackward0": x.expand(2, 2, 3), "PermuteBackward0": x.permute(1, 0),
    }
    for expected, t in names.items():
        assert t.grad_fn.name == expected
    assert apply("matmul", x, x.t()).grad_fn.name == "MmBackward0"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_where_with_a_zero_branch_is_bit_exact(dtype):
    """where(cond, x, 0) takes a bitwise fast path; it must equal np.where bit for bit (nan, inf, -0.0)."""
    cond = np.random.default_rng(0).random((6, 7)) > 0.5
    x = np.random.default_rng(1).standard_normal((6, 7)).astype(dtype)
    x[0, :3] = [np.nan, -0.0, np.inf]
    zero = np.asarray(0.0, dtype)
    for args in ((cond, x, zero), (cond, zero, x)):
        got = OPS["where"].run(*args)
        assert got.dtype == dtype
        assert np.array_equal(got.view(np.uint8), np.where(*args).view(np.uint8))


def _ir_vjp_params():
    return [p for p in _all_cases() if OPS[p.values[0]].differentiable]


@pytest.mark.parametrize("name,case", _ir_vjp_params())
def test_vjps_build_ir_graphs_that_compute_the_same_gradients(name, case):
    """Each vjp rule run on IR values (graph autodiff's builder) must build a graph whose shapes
    agree with the registry's infer rules and whose evaluation equals the numpy vjp."""
    graph_mod = pytest.importorskip("engine.ir.graph")
    from engine.ir.builder import IRBuilder
    from engine.ir.interpreter import run as run_graph
    g = graph_mod.Graph("vjp")
    values = [g.placeholder(f"x{i}", a.shape, a.dtype) for i, a in enumerate(case.inputs)]
    out = g.call(name, *values, **case.attrs)
    cot = g.placeholder("grad", out.shape, out.dtype)
    grads = OPS[name].vjp(IRBuilder(g), cot, *values, out, **case.attrs)
    wanted = list(case.diff)
    g.output(*[grads[i] for i in wanted])
    cotangent = np.random.default_rng(0).standard_normal(out.shape).astype(out.dtype)
    got = run_graph(g, list(case.inputs) + [cotangent])
    array_out = OPS[name].run(*case.inputs, **case.attrs)
    expected = OPS[name].vjp(NUMPY, cotangent, *case.inputs, array_out, **case.attrs)
    for value, i, result in zip((grads[i] for i in wanted), wanted, got):
        assert tuple(value.shape) == tuple(np.shape(expected[i]))
        np.testing.assert_allclose(result, expected[i], rtol=1e-12, atol=1e-14)
