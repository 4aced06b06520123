"""cumsum, prod, unbind, scatter, index_put, var_mean/std_mean, torch.linalg norms and OneCycleLR beyond the
shared op cases: prod's gradients at zeros (first and second order), in-place semantics, dtype rules,
and live comparisons with real PyTorch where it is installed."""
from __future__ import annotations

import math

import numpy as np
import pytest

import engine.compat.torch as torch
from engine.backward import run_backward
from engine.errors import UnsupportedError
from engine.ops import OPS
from engine.tensor import Tensor, apply
from tests.engine.op_cases import CASES
from tests.engine.ops.test_ops_gradcheck import finite_difference


# ---- prod: exact at zeros ------------------------------------------------------------------------------

@pytest.mark.parametrize("values,expected", [
    ([2.0, 3.0, 4.0], [12.0, 8.0, 6.0]),
    ([2.0, 0.0, 4.0], [0.0, 8.0, 0.0]),          # one zero: only it gets a gradient, the product of the rest
    ([0.0, 3.0, 0.0], [0.0, 0.0, 0.0]),          # two zeros: every gradient is 0
])
def test_prod_gradient_at_zeros_is_exact(values, expected):
    x = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    x.prod().backward()
    assert x.grad.tolist() == expected


@pytest.mark.parametrize("values,dim", [
    ([[1.5, 0.0, -2.0], [0.5, 1.2, 0.7]], None),
    ([[1.5, 0.0, 0.0], [0.0, 1.2, 0.7]], 1),
    ([[1.5, -0.4, 2.0], [0.5, 1.2, 0.7]], 0),
])
def test_prod_second_derivative_matches_finite_differences(values, dim):
    """create_graph through prod runs prod_others' quadratic rule: d/dx of <grad prod(x), v>."""
    x0 = np.array(values)
    attrs = {"dim": dim, "keepdim": False}
    out = OPS["prod"].run(x0, **attrs)
    weights = np.random.default_rng(2).standard_normal(out.shape)
    direction = np.random.default_rng(3).standard_normal(x0.shape)

    def h(arrays):
        leaf = Tensor(arrays[0].copy(), requires_grad=True)
        (g,) = run_backward([torch.prod(leaf, dim) if dim is not None else leaf.prod()], [weights], inputs=[leaf])
        return float(np.sum(g.array * direction))

    leaf = Tensor(x0.copy(), requires_grad=True)
    (g,) = run_backward([leaf.prod() if dim is None else leaf.prod(dim)], [weights], create_graph=True,
                        inputs=[leaf])
    (g2,) = run_backward([(g * Tensor(direction)).sum()], [np.ones(())], inputs=[leaf])
    np.testing.assert_allclose(g2.array, finite_difference(h, [x0], 0, 1e-5), rtol=1e-6, atol=1e-8)


def test_prod_and_cumsum_dtypes_follow_pytorch():
    ints = torch.tensor([1, 2, 3], dtype=torch.int32)
    assert ints.prod().dtype == torch.int64 and ints.cumsum(0).dtype == torch.int64
    assert torch.tensor([True, False]).cumsum(0).tolist() == [1, 1]
    assert torch.ones(2, dtype=torch.float64).prod().dtype == torch.float64
    assert torch.ones(2, 3).prod(1, dtype=torch.float64).dtype == torch.float64
    assert torch.ones(2, 3).cumsum(-1, dtype=torch.float64).dtype == torch.float64
    assert torch.ones(0).prod().item() == 1.0


def test_cumsum_and_prod_misuse_raise_pytorchs_errors():
    x = torch.ones(2, 3)
    with pytest.raises(TypeError, match='missing 1 required positional arguments: "dim"'):
        torch.cumsum(x)
    with pytest.raises(IndexError, match=r"expected to be in range of \[-2, 1\], but got 2"):
        x.cumsum(2)
    with pytest.raises(TypeError, match="invalid combination of arguments"):
        torch.prod(x, (0, 1))


# ---- scatter / index_put: in place, errors ----------------------------------------------------------------

def test_scatter_in_place_without_grad_writes_into_the_tensor_and_its_views():
    x = torch.zeros(2, 3)
    row = x[0]
    x.scatter_(1, torch.tensor([[2], [0]]), 1.5)
    assert row.tolist() == [0.0, 0.0, 1.5]
    x.scatter_add_(0, torch.tensor([[1, 1, 1]]), torch.ones(1, 3))
    assert x.tolist() == [[0.0, 0.0, 1.5], [2.5, 1.0, 1.0]]


def test_scatter_in_place_on_a_leaf_that_requires_grad_is_refused():
    leaf = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.scatter_(1, torch.tensor([[0], [1]]), 0.0)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        leaf.index_put_((torch.tensor([0]),), torch.tensor(1.0))


def test_scatter_with_a_larger_src_fails_in_backward_only_when_src_needs_a_gradient():
    x = torch.zeros(2, 3, requires_grad=True)
    index = torch.tensor([[2], [0]])
    x.scatter(1, index, torch.ones(2, 2)).sum().backward()        # src needs no gradient: fine
    assert x.grad.tolist() == [[1.0, 1.0, 0.0], [0.0, 1.0, 1.0]]
    src = torch.ones(2, 2, requires_grad=True)
    with pytest.raises(RuntimeError, match=r"invalid gradient at index 1 - got \[2, 1\] but expected shape "
                                           r"compatible with \[2, 2\]"):
        x.scatter(1, index, src).sum().backward()


def test_graph_autodiffs_scatter_rule_places_a_larger_srcs_gradient_in_its_corner():
    """The full rule (graph autodiff asks every input's gradient, a constant src's too) does not fail:
    src's gradient is grad gathered at index, zeros where index does not reach."""
    from engine.ops.builder import NUMPY
    g = np.arange(12.0).reshape(3, 4)
    index, src = np.array([[1], [3]]), np.ones((3, 2))
    for name in ("scatter", "scatter_add"):
        grad_src = OPS[name].vjp(NUMPY, g, np.zeros((3, 4)), index, src, None, dim=1)[2]
        assert grad_src.tolist() == [[1.0, 0.0], [7.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("call,error,message", [
    ("x.scatter(1, torch.tensor([[0]]), x.double())", RuntimeError, "Expected self.dtype to be equal to src.dtype"),
    ("x.scatter(1, torch.tensor([[0.0]]), 1.0)", RuntimeError, "Expected dtype int64 for index"),
    ("x.scatter(0, torch.tensor([[3]]), 1.0)", RuntimeError, "index 3 is out of bounds for dimension 0 with size 2"),
    ("x.scatter(1, torch.tensor([0]), 1.0)", RuntimeError, "same number of dimensions as self tensor"),
    ("x.scatter(1, torch.tensor([[0]]), x, reduce='add')", UnsupportedError, "reduce='add'"),
    ("x.index_put((torch.tensor([0]),), torch.tensor(1.0, dtype=torch.float64))", RuntimeError,
     "got Float for the destination and Double for the source"),
    ("x.index_put((torch.tensor([0]),), torch.ones(5))", RuntimeError,
     r"value tensor of shape \[5\] cannot be broadcast to indexing result of shape \[1, 3\]"),
    ("x.index_put((torch.tensor([0]),), 1.0)", TypeError, "must be Tensor, not float"),
])
def test_scatter_and_index_put_misuse_raise_pytorchs_errors(call, error, message):
    x = torch.ones(2, 3)
    with pytest.raises(error, match=message):
        eval(call)


def test_unsupported_names_fail_as_unsupported(run):
    record = run("import torch\ntorch.ones(2, 2).scatter(1, torch.tensor([[0], [1]]), torch.ones(2, 1), reduce='add')")
    assert record["error"]["kind"] == "unsupported" and "reduce='add'" in record["error"]["message"]
    record = run("import torch\ntorch.linalg.svd(torch.ones(2, 2))")
    assert record["error"]["kind"] == "unsupported" and "torch.linalg.svd" in record["error"]["message"]
    assert "vector_norm" in record["error"]["message"]
    record = run("import torch\ntorch.linalg.norm(torch.ones(2, 2), 'nuc')")
    assert record["error"]["kind"] == "unsupported"


# ---- OneCycleLR --------------------------------------------------------------------------------------------

def test_one_cycle_lr_follows_pytorchs_formula():
    """Two phases: cosine from max_lr/25 up to max_lr by step pct_start*total - 1, then down to
    initial_lr/1e4 at the last step; momentum the opposite way between 0.95 and 0.85."""
    p = torch.nn.Parameter(torch.ones(1))
    sgd = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    total, top = 10, 1.0
    scheduler = torch.optim.lr_scheduler.OneCycleLR(sgd, max_lr=top, total_steps=total)
    lo, end = top / 25, top / 25 / 1e4
    rise_end = 0.3 * total - 1

    def cos(start, stop, pct):
        return stop + (start - stop) / 2 * (math.cos(math.pi * pct) + 1)
    for step in range(total):
        if step <= rise_end:
            lr, momentum = cos(lo, top, step / rise_end), cos(0.95, 0.85, step / rise_end)
        else:
            pct = (step - rise_end) / (total - 1 - rise_end)
            lr, momentum = cos(top, end, pct), cos(0.85, 0.95, pct)
        assert scheduler.get_last_lr()[0] == pytest.approx(lr, rel=1e-12)
        assert sgd.param_groups[0]["momentum"] == pytest.approx(momentum, rel=1e-12)
        sgd.step()
        scheduler.step()
    with pytest.raises(ValueError, match="Tried to step 11 times. The specified number of total steps is 10"):
        scheduler.step()


@pytest.mark.torch
@pytest.mark.parametrize("options", [
    {"anneal_strategy": "cos"}, {"anneal_strategy": "linear", "pct_start": 0.4},
    {"three_phase": True, "div_factor": 5.0}, {"cycle_momentum": False}, {"max_lr": [0.3, 0.6]},
])
@pytest.mark.parametrize("optimizer", ["SGD", "Adam"])
def test_one_cycle_lr_matches_real_pytorch(real_torch, options, optimizer):
    def schedule(lib):
        params = [lib.nn.Parameter(lib.ones(2)), lib.nn.Parameter(lib.ones(1))]
        groups = [{"params": [params[0]]}, {"params": [params[1]], "lr": 0.05}]
        opt = lib.optim.SGD(groups, lr=0.1, momentum=0.9) if optimizer == "SGD" else lib.optim.Adam(groups, lr=0.1)
        kwargs = {"max_lr": 0.5, **options}
        scheduler = lib.optim.lr_scheduler.OneCycleLR(opt, total_steps=12, **kwargs)
        seen = []
        for _ in range(12):
            seen.append([(g["lr"], g.get("momentum"), g.get("betas")) for g in opt.param_groups])
            opt.step()
            scheduler.step()
        return seen
    ours, theirs = schedule(torch), schedule(real_torch)
    for a, b in zip(ours, theirs):
        for (lr, momentum, betas), (lr_t, momentum_t, betas_t) in zip(a, b):
            assert lr == pytest.approx(lr_t, rel=1e-12)
            assert momentum == pytest.approx(momentum_t, rel=1e-12) if momentum_t is not None else momentum is None
            assert betas == pytest.approx(betas_t, rel=1e-12) if betas_t is not None else betas is None


# ---- live comparisons with real PyTorch: values and gradients ----------------------------------------------

_LIVE = [
    "x.cumsum(1)", "torch.cumsum(x, -2)", "x.prod()", "x.prod(0)",
    "torch.prod(x, -1, keepdim=True)", "z.prod()", "z.prod(1)",
    "torch.stack(x.unbind(1)[::-1])",
    "x.scatter(1, i, s)", "x.scatter(0, j[:1], 2.5)", "x.scatter_add(1, i, s)",
    "torch.scatter_add(x, 0, j, s)", "(x * 1).scatter_(1, i, s)",
    "x.index_put((j[0], i[1]), s[0], accumulate=True)", "x.index_put((x > 0,), s[0, 0])",
    "torch.stack(torch.var_mean(x, 1))", "torch.stack(torch.std_mean(x, 0, keepdim=True))",
    "torch.linalg.vector_norm(x, ord=3, dim=1)", "torch.linalg.vector_norm(z, ord=float('inf'))",
    "torch.linalg.norm(x, ord=1)", "torch.linalg.norm(x, ord=-float('inf'), keepdim=True)",
]


def _live_inputs(lib):
    rng = np.random.default_rng(4)
    x = lib.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    z = lib.tensor([[1.5, 0.0, -2.0, 0.5], [0.0, 0.0, 1.0, 2.0], [1.0, 2.0, 3.0, 0.0]], dtype=lib.float64,
                   requires_grad=True)
    s = lib.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    i = lib.tensor([[3, 1], [0, 2], [2, 3]])
    j = lib.tensor([[2, 0], [0, 2], [1, 1]])
    return {"torch": lib, "x": x, "z": z, "s": s, "i": i, "j": j}


@pytest.mark.torch
@pytest.mark.parametrize("expr", _LIVE)
def test_values_and_gradients_match_real_pytorch(real_torch, expr):
    results = []
    for lib in (torch, real_torch):
        names = _live_inputs(lib)
        out = eval(expr, names)
        weights = lib.tensor(np.random.default_rng(5).standard_normal(tuple(out.shape)))
        (out * weights).sum().backward()
        results.append((out.detach().numpy(), [names[k].grad for k in ("x", "z", "s")]))
    (ours, our_grads), (theirs, their_grads) = results
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)
    for mine, real in zip(our_grads, their_grads):
        assert (mine is None) == (real is None)
        if real is not None:
            np.testing.assert_allclose(mine.numpy(), real.numpy(), rtol=1e-12, atol=1e-12)


# ---- every op case of the new ops against real PyTorch: values, gradients, grad_fn names ------------------

def _torch_prod(lib, x, dim=None, keepdim=False, dtype=None):
    dtype = None if dtype is None else getattr(lib, dtype)
    return lib.prod(x, dtype=dtype) if dim is None else lib.prod(x, dim, keepdim=keepdim, dtype=dtype)


def _torch_cumsum(lib, x, dim, reverse=False, dtype=None):
    dtype = None if dtype is None else getattr(lib, dtype)
    return lib.cumsum(x.flip(dim), dim, dtype=dtype).flip(dim) if reverse else lib.cumsum(x, dim, dtype=dtype)


_ORACLE = {
    "prod": _torch_prod,
    "cumsum": _torch_cumsum,
    "scatter": lambda lib, x, index, src, dim: lib.scatter(x, dim, index, src),
    "scatter_value": lambda lib, x, index, dim, value: lib.scatter(x, dim, index, value),
    "scatter_add": lambda lib, x, index, src, dim: lib.scatter_add(x, dim, index, src),
}


@pytest.mark.torch
@pytest.mark.parametrize("name,case", [pytest.param(n, c, id=f"{n}-{i}") for n in _ORACLE
                                       for i, c in enumerate(CASES[n])])
def test_op_cases_match_real_pytorch(real_torch, name, case):
    ours_in = [Tensor(a.copy(), requires_grad=i in case.diff) for i, a in enumerate(case.inputs)]
    theirs_in = [real_torch.tensor(a.copy(), requires_grad=i in case.diff) for i, a in enumerate(case.inputs)]
    ours = apply(name, *ours_in, **case.attrs)
    theirs = _ORACLE[name](real_torch, *theirs_in, **case.attrs)
    exact = all(a.dtype == np.float64 for a in case.inputs if a.dtype.kind == "f")
    tolerance = {"rtol": 1e-10, "atol": 1e-12} if exact else {"rtol": 1e-6, "atol": 1e-7}   # (float32: order)
    np.testing.assert_allclose(ours.array, theirs.detach().numpy(), **tolerance)
    weights = np.random.default_rng(3).standard_normal(ours.array.shape)
    grads = run_backward([ours], [weights], inputs=[ours_in[i] for i in case.diff])
    (theirs * real_torch.tensor(weights)).sum().backward()
    for i, g in zip(case.diff, grads):
        assert g.array.dtype == theirs_in[i].grad.numpy().dtype
        np.testing.assert_allclose(g.array, theirs_in[i].grad.numpy(), **tolerance)
    if not case.attrs.get("reverse"):
        assert ours.grad_fn.name == type(theirs.grad_fn).__name__
