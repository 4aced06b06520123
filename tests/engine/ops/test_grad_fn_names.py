"""The grad_fn names the ops of engine/ops/{linalg,movement,elementwise,reduce,index}.py record are the
names PyTorch 2.13 gives the same expressions.

Each case is an expression over the tensors SETUP makes and the name of the node PyTorch 2.13 recorded
for its result (`type(result.grad_fn).__name__`, None for no node), stored here so that the test runs
without torch; where real torch is importable, the expressions also run through it now. After adding a
case (with any name), print the entries whose stored name is not what real torch records:
    .venv/bin/python tests/engine/ops/test_grad_fn_names.py --record
"""
from __future__ import annotations

import sys

import numpy as np
import pytest

SETUP = """
v = torch.tensor([1.0, -2.0, 3.0], requires_grad=True)
u = torch.tensor([0.5, 1.5, -1.0], requires_grad=True)
m = torch.tensor([[0.5, -1.0, 2.0], [1.5, 0.25, -3.0]], requires_grad=True)
p = torch.tensor([[0.5, 1.5, 2.0], [1.0, 3.0, 0.25]], requires_grad=True)
w = torch.ones(3, 4, requires_grad=True)
row = torch.ones(1, 3, requires_grad=True)
b3 = torch.ones(2, 3, 4, requires_grad=True)
c3 = torch.ones(2, 4, 3, requires_grad=True)
one_b = torch.ones(1, 4, 3, requires_grad=True)
d4 = torch.ones(5, 2, 3, 4, requires_grad=True)
ones131 = torch.ones(1, 3, 1, requires_grad=True)
s = torch.tensor(2.0, requires_grad=True)
idx = torch.tensor([1, 0, 1])
mask = torch.tensor([[True, False, True], [False, True, False]])


def put(x, index, value):
    y = x * 1
    y[index] = value
    return y


def vjp(out, x):
    # x's gradient for an upstream gradient that itself requires grad: the node a backward rule records
    return torch.autograd.grad(out, x, torch.ones(out.shape, requires_grad=True), create_graph=True)[0]
"""

EXPECTED: dict[str, str | None] = {
    # ---- linalg: matmul by arity (at::native::_matmul_impl), addmm, einsum
    "v @ u": "DotBackward0",
    "m @ u": "MvBackward0",
    "v @ w": "SqueezeBackward4",
    "m @ w": "MmBackward0",
    "b3 @ c3": "UnsafeViewBackward0",
    "b3 @ w.t()": "UnsafeViewBackward0",
    "b3 @ w[0]": "UnsafeViewBackward0",
    "v @ c3.transpose(1, 2)": "UnsafeViewBackward0",
    "m @ b3": "CloneBackward0",
    "m.detach() @ b3": "UnsafeViewBackward0",
    "row @ b3": "TransposeBackward0",
    "m @ w.expand(2, 3, 4)": "CloneBackward0",
    "one_b @ c3.transpose(1, 2)": "CloneBackward0",
    "one_b.detach() @ c3.transpose(1, 2)": "UnsafeViewBackward0",
    "one_b @ d4": "UnsafeViewBackward0",
    "d4 @ c3": "UnsafeViewBackward0",
    "d4 @ c3[0]": "UnsafeViewBackward0",
    "torch.matmul(v, u)": "DotBackward0",
    "torch.mm(m, w)": "MmBackward0",
    "torch.mv(m, u)": "MvBackward0",
    "torch.dot(v, u)": "DotBackward0",
    "torch.bmm(b3, c3)": "BmmBackward0",
    "torch.addmm(u, m.t(), m)": "AddmmBackward0",
    "torch.nn.functional.linear(m, w.t(), u[:1].expand(4))": "AddmmBackward0",
    "torch.einsum('ij,jk->ik', m, w)": "ViewBackward0",
    "torch.einsum('bij,bjk->bik', b3, c3)": "ViewBackward0",
    "torch.einsum('i,i->', v, u)": "ViewBackward0",
    "torch.einsum('i,j->ij', v, u)": "MulBackward0",
    "torch.einsum('ij,ij->ij', m, p)": "MulBackward0",
    "torch.einsum('ij->ji', m)": "PermuteBackward0",
    "torch.einsum('ij->j', m)": "SumBackward1",
    "torch.einsum('ij,jk,kl->il', m, w, w.t())": "ViewBackward0",
    # ---- movement: views, transposes, squeezes, joins, basic indexing
    "m.reshape(6)": "ViewBackward0",
    "m.view(3, 2)": "ViewBackward0",
    "m.view(-1)": "ViewBackward0",
    "m.flatten()": "ViewBackward0",
    "b3.flatten(1)": "ViewBackward0",
    "m.t().reshape(6)": "UnsafeViewBackward0",
    "m.t().flatten()": "UnsafeViewBackward0",
    "b3.transpose(1, 2).reshape(2, 12)": "UnsafeViewBackward0",
    "b3.permute(1, 0, 2).reshape(3, 8)": "UnsafeViewBackward0",
    "b3.expand(2, 2, 3, 4).reshape(4, 12)": "UnsafeViewBackward0",
    "b3.transpose(0, 1).reshape(3, 2, 2, 2)": "ReshapeAliasBackward0",
    "b3.transpose(0, 1).view(3, 2, 2, 2)": "ViewBackward0",
    "b3[:, :2].reshape(4, 4)": "UnsafeViewBackward0",
    "m[0].reshape(3, 1)": "ViewBackward0",
    "m.expand(2, 2, 3)": "ExpandBackward0",
    "m.expand_as(torch.ones(4, 2, 3))": "ExpandBackward0",
    "torch.broadcast_to(v, (2, 3))": "ExpandBackward0",
    "b3.permute(2, 0, 1)": "PermuteBackward0",
    "m.T": "PermuteBackward0",
    "m.t()": "TBackward0",
    "v.t()": "TBackward0",
    "m.transpose(0, 1)": "TransposeBackward0",
    "m.mT": "TransposeBackward0",
    "m.swapaxes(0, 1)": "TransposeBackward0",
    "torch.transpose(m, 0, 1)": "TransposeBackward0",
    "b3.transpose(0, 2)": "TransposeBackward0",
    "b3.mT": "TransposeBackward0",
    "ones131.squeeze()": "SqueezeBackward0",
    "ones131.squeeze(0)": "SqueezeBackward1",
    "ones131.squeeze(-1)": "SqueezeBackward1",
    "ones131.squeeze((0, 2))": "SqueezeBackward2",
    "m.squeeze(0)": "SqueezeBackward1",
    "v.unsqueeze(0)": "UnsqueezeBackward0",
    "m[:, None]": "UnsqueezeBackward0",
    "torch.cat([m, p])": "CatBackward0",
    "torch.stack([m, p], dim=1)": "StackBackward0",
    "m[:, 1:]": "SliceBackward0",
    "m.index_select(1, torch.tensor([2, 0]))": "IndexSelectBackward0",
    "torch.index_select(m, 0, torch.tensor([1]))": "IndexSelectBackward0",
    "m[torch.tensor([1, 0])]": "IndexBackward0",
    "m.repeat(2, 1)": "RepeatBackward0",
    "m[0]": "SelectBackward0",
    "m[0, 1]": "SelectBackward0",
    "m[..., 1]": "SelectBackward0",
    "vjp(m[:, 1:], m)": "SliceBackwardBackward0",
    "vjp(m[1], m)": "SelectBackwardBackward0",
    "vjp(m.expand(4, 2, 3), m)": "ViewBackward0",
    # ---- elementwise
    "m + p": "AddBackward0",
    "m + 2": "AddBackward0",
    "2 + m": "AddBackward0",
    "m.add(p, alpha=2)": "AddBackward0",
    "m - p": "SubBackward0",
    "m - 2": "SubBackward0",
    "2 - m": "RsubBackward1",
    "m.sub(p, alpha=2)": "SubBackward0",
    "m * p": "MulBackward0",
    "2 * m": "MulBackward0",
    "m / p": "DivBackward0",
    "m / 2": "DivBackward0",
    "2 / m": "MulBackward0",
    "1 / m": "MulBackward0",
    "2.5 / m": "MulBackward0",
    "m.reciprocal()": "ReciprocalBackward0",
    "torch.reciprocal(m)": "ReciprocalBackward0",
    "(m * 1).reciprocal_()": "ReciprocalBackward0",
    "vjp(m.reciprocal(), m)": "MulBackward0",
    "torch.maximum(m, p)": "MaximumBackward0",
    "torch.max(m, p)": "MaximumBackward0",
    "torch.minimum(m, p)": "MinimumBackward0",
    "m ** p": "PowBackward1",
    "m ** s": "PowBackward1",
    "s ** m": "PowBackward1",
    "2 ** m": "PowBackward2",
    "torch.pow(2.0, m)": "PowBackward2",
    "m ** 2": "PowBackward0",
    "m ** 0.5": "PowBackward0",
    "m.pow(3)": "PowBackward0",
    "torch.square(m)": "PowBackward0",
    "-m": "NegBackward0",
    "m.exp()": "ExpBackward0",
    "p.log()": "LogBackward0",
    "p.sqrt()": "SqrtBackward0",
    "m.abs()": "AbsBackward0",
    "m.tanh()": "TanhBackward0",
    "m.sin()": "SinBackward0",
    "m.cos()": "CosBackward0",
    "m.floor()": "FloorBackward0",
    "m.ceil()": "CeilBackward0",
    "m.round()": "RoundBackward0",
    "m.sign()": "SignBackward0",
    "torch.sign(m)": "SignBackward0",
    "m % 2": "RemainderBackward0",
    "m % p": "RemainderBackward1",
    "m.sigmoid()": "SigmoidBackward0",
    "m.relu()": "ReluBackward0",
    "torch.erf(m)": "ErfBackward0",
    "torch.nn.functional.gelu(m)": "GeluBackward0",
    "torch.nn.functional.gelu(m, approximate='tanh')": "GeluBackward0",
    "torch.nn.functional.softplus(m)": "SoftplusBackward0",
    "m.clamp(0, 1)": "ClampBackward1",
    "m.clamp(min=0)": "ClampBackward1",
    "m.clamp(max=1)": "ClampBackward1",
    "m.clip(0, 1)": "ClampBackward1",
    "m.clamp_min(0)": "ClampMinBackward0",
    "m.clamp_max(1)": "ClampMaxBackward0",
    "m.nan_to_num()": "NanToNumBackward0",
    "torch.fmod(m, 0.75)": "FmodBackward0",
    "m.fmod(p)": "FmodBackward1",
    "torch.nan_to_num(m / 0, nan=1.0, posinf=2.0)": "NanToNumBackward0",
    "torch.clamp(m, min=p)": "ClampBackward0",
    "m.clamp_min(p)": "ClampMinBackward1",
    "m.clamp_max(p)": "ClampMaxBackward1",
    "torch.clamp_min(m, p)": "ClampMinBackward1",
    "torch.clamp_max(m, p)": "ClampMaxBackward1",
    "torch.clamp_min(m, 0.5)": "ClampMinBackward0",
    "torch.clamp(m, max=p)": "ClampBackward0",
    "torch.clamp(m, p, p + 1)": "ClampBackward0",
    "torch.clip(m, p - 1, p)": "ClampBackward0",
    "m.masked_fill(mask, 0.0)": "MaskedFillBackward0",
    "m.clone()": "CloneBackward0",
    "m.double()": "ToCopyBackward0",
    "m.to(torch.float64)": "ToCopyBackward0",
    "m.float()": None,
    "torch.where(mask, m, p)": "WhereBackward0",
    "torch.where(mask, m, 0.0)": "WhereBackward0",
    # ---- reductions
    "m.sum()": "SumBackward0",
    "m.sum(1)": "SumBackward1",
    "m.sum(dim=(0, 1))": "SumBackward1",
    "m.sum(0, keepdim=True)": "SumBackward1",
    "m.mean()": "MeanBackward0",
    "m.mean(1)": "MeanBackward1",
    "vjp(m * u, u)": "ViewBackward0",
    "vjp(m * row, row)": "SumBackward1",
    "m.max()": "MaxBackward1",
    "m.max(1).values": "MaxBackward0",
    "m.max(1)[0]": "MaxBackward0",
    "m.min()": "MinBackward1",
    "m.min(0).values": "MinBackward0",
    "m.amax(1)": "AmaxBackward0",
    "m.amax()": "AmaxBackward0",
    "m.amin(0)": "AminBackward0",
    "m.var()": "VarBackward0",
    "m.var(1)": "VarBackward0",
    "m.std()": "StdBackward0",
    "m.std(0)": "StdBackward0",
    "m.logsumexp(1)": "LogsumexpBackward0",
    "torch.norm(m)": "LinalgVectorNormBackward0",
    "torch.norm(m, dim=1)": "LinalgVectorNormBackward0",
    "torch.nn.functional.normalize(m)": "DivBackward0",
    "torch.norm(m, 1, 1)": "LinalgVectorNormBackward0",
    "torch.norm(m, p=float('inf'))": "LinalgVectorNormBackward0",
    # ---- index
    "m[idx]": "IndexBackward0",
    "m[:, idx]": "IndexBackward0",
    "m[[0, 1]]": "IndexBackward0",
    "m[mask]": "IndexBackward0",
    "vjp(m[idx], m)": "IndexPutImplBackward0",
    "m.gather(1, torch.tensor([[0], [2]]))": "GatherBackward0",
    "vjp(m.gather(1, torch.tensor([[0], [2]])), m)": "ScatterAddBackward0",
    "torch.nn.functional.embedding(idx, w)": "EmbeddingBackward0",
    "put(m, idx[:2], 0.0)": "IndexPutBackward0",
    "put(m, mask, p[mask])": "IndexPutBackward0",
    "put(m, (slice(None), 0), 1.0)": "CopySlices",
    "put(m, (slice(None), idx), 1.0)": "IndexPutBackward0",
    "put(m, (..., idx), 1.0)": "IndexPutBackward0",
    "put(m, (0, idx), 1.0)": "CopySlices",
    "put(m, (None, idx[:2]), 1.0)": "CopySlices",
    "put(m, torch.tensor(1), 1.0)": "CopySlices",
    "vjp(torch.bmm(b3, c3), b3)": "BmmBackward0",
    "vjp(m @ w, m)": "MmBackward0",
    "vjp(torch.nn.functional.linear(m, w.t(), u[:1].expand(4)), m)": "MmBackward0",
    "vjp(m.t(), m)": "TBackward0",
    "vjp(m.transpose(0, 1), m)": "TransposeBackward0",
    "vjp(m.tanh(), m)": "TanhBackwardBackward0",
    "vjp(m.sigmoid(), m)": "SigmoidBackwardBackward0",
    "vjp(m.relu(), m)": "ThresholdBackwardBackward0",
    "vjp(m.cos(), m)": "MulBackward0",
    "vjp(m @ u, m)": "MulBackward0",
    "vjp(m @ u, u)": "MvBackward0",
    "vjp(m / p, p)": "MulBackward0",
    "vjp(m.mean(1), m)": "DivBackward1",
    "vjp(m.amax(1), m)": "MulBackward0",
    "vjp(m.unsqueeze(0), m)": "SqueezeBackward1",
    "vjp(ones131.squeeze(), ones131)": "UnsqueezeBackward0",
    "vjp(m.masked_fill(mask, 0.0), m)": "MaskedFillBackward0",
    "vjp(torch.maximum(m, p), m)": "MaskedFillBackward0",
    "vjp(torch.minimum(m, p), p)": "MaskedFillBackward0",
    "m.tril()": "TrilBackward0",
    "m.triu(1)": "TriuBackward0",
    # ---- products, running sums, unbind, scatter, index_put, moments, torch.linalg norms
    "m.prod()": "ProdBackward0",
    "m.prod(1)": "ProdBackward1",
    "torch.prod(m, -1, keepdim=True)": "ProdBackward1",
    "m.prod(dtype=torch.float64)": "ProdBackward0",
    "vjp(m.prod(), m)": "MulBackward0",
    "vjp(m.prod(0), m)": "MulBackward0",
    "m.cumsum(0)": "CumsumBackward0",
    "torch.cumsum(m, dim=-1, dtype=torch.float64)": "CumsumBackward0",
    "torch.cumprod(m, 1)": "CumprodBackward0",
    "m.cumprod(0, dtype=torch.float64)": "CumprodBackward0",
    "torch.flip(m, [0, 1])": "FlipBackward0",
    "m.fliplr()": "FlipBackward0",
    "torch.roll(m, 1)": "RollBackward0",
    "m.roll((1, -1), (0, 1))": "RollBackward0",
    "torch.repeat_interleave(v, 2)": "ViewBackward0",
    "m.repeat_interleave(torch.tensor([1, 2]), dim=0)": "IndexSelectBackward0",
    "v.dot(u)": "DotBackward0",
    "v.outer(u)": "MulBackward0",
    "vjp(m.cumsum(1), m)": "FlipBackward0",
    "m.unbind(1)[0]": "UnbindBackward0",
    "m.split(1)[1]": "SplitBackward0",
    "m.chunk(3, dim=1)[2]": "SplitBackward0",
    "torch.split(m, [1, 2], dim=1)[0]": "SplitWithSizesBackward0",
    "m[:, 1:]": "SliceBackward0",
    "m.index_select(1, torch.tensor([2, 0]))": "IndexSelectBackward0",
    "torch.index_select(m, 0, torch.tensor([1]))": "IndexSelectBackward0",
    "m[torch.tensor([1, 0])]": "IndexBackward0",
    "m.repeat(2, 1)": "RepeatBackward0",
    "torch.unbind(m)[1]": "UnbindBackward0",
    "m.scatter(1, torch.tensor([[2, 0], [1, 2]]), p[:, :2])": "ScatterBackward0",
    "m.scatter(1, torch.tensor([[2], [0]]), 0.5)": "ScatterBackward1",
    "torch.scatter(m, 0, torch.tensor([[1, 0, 1]]), row)": "ScatterBackward0",
    "m.scatter_add(0, torch.tensor([[1, 0, 1]]), row)": "ScatterAddBackward0",
    "torch.scatter_add(m, 1, torch.tensor([[2], [2]]), p[:, :1])": "ScatterAddBackward0",
    "(m * 1).scatter_(1, torch.tensor([[2], [0]]), 0.5)": "ScatterBackward1",
    "(m * 1).scatter_(1, torch.tensor([[2], [0]]), p[:, :1])": "ScatterBackward0",
    "(m * 1).scatter_add_(1, torch.tensor([[2], [0]]), p[:, :1])": "ScatterAddBackward0",
    "vjp(m.scatter(1, torch.tensor([[2], [0]]), (q := p[:, :1])), q)": "GatherBackward0",
    "vjp(m.scatter(1, torch.tensor([[2], [0]]), p[:, :1]), m)": "ScatterBackward1",
    "vjp(m.scatter_add(1, torch.tensor([[2], [0]]), (q := p[:, :1])), q)": "GatherBackward0",
    "m.index_put((idx[:2],), p[:1])": "IndexPutBackward0",
    "(m * 1).index_put_((idx[:2], idx[:2]), v[:2], accumulate=True)": "IndexPutBackward0",
    "torch.index_put(m, (mask,), v)": "IndexPutBackward0",
    "torch.var_mean(m, 1)[0]": "VarMeanBackward0",
    "torch.var_mean(m, 1)[1]": "VarMeanBackward0",
    "torch.std_mean(m)[0]": "StdMeanBackward0",
    "torch.std_mean(m, dim=0, keepdim=True)[1]": "StdMeanBackward0",
    "torch.linalg.vector_norm(m, ord=3, dim=1)": "LinalgVectorNormBackward0",
    "torch.linalg.vector_norm(m)": "LinalgVectorNormBackward0",
    "torch.linalg.norm(v)": "LinalgVectorNormBackward0",
    "torch.linalg.norm(v, ord=1)": "LinalgVectorNormBackward0",
    "torch.linalg.norm(m, dim=1)": "LinalgVectorNormBackward0",
    "torch.linalg.norm(m, ord=float('inf'))": "AmaxBackward0",
    "torch.linalg.norm(m, ord=-1)": "AminBackward0",
    "torch.linalg.matrix_norm(m)": "LinalgVectorNormBackward0",
}

# Cases Dagscope still names differently, and why. Strict: a case that starts to pass fails here, so
# that its entry is removed. (Where several torch functions share one op, the op takes an `fn` attribute
# naming the one that ran; the tensor.py callers below do not pass it yet.)
KNOWN_MISMATCHES: dict[str, str] = {}


def node_name(node) -> str | None:
    """The name of a grad_fn: PyTorch's is type(node).__name__ (and node.name()); Dagscope's `name` field
    holds it, as a str or as a str that is also called like PyTorch's name()."""
    if node is None:
        return None
    name = node.name
    return str(name() if callable(name) else name)


def names(torch_module, expressions, name_of) -> dict:
    """Each expression's grad_fn name (or 'ERROR <type>') with `torch_module` as `torch`."""
    namespace = {"torch": torch_module}
    exec(SETUP, namespace)
    out = {}
    for expr in expressions:
        try:
            out[expr] = name_of(eval(expr, namespace).grad_fn)
        except Exception as exc:     # noqa: BLE001 - the name of the failure is the result
            out[expr] = f"ERROR {type(exc).__name__}"
    return out


FAMILIES = ("linalg", "movement", "elementwise", "reduce", "index")


@pytest.fixture(scope="module")
def dagscope_run():
    """Dagscope's name for every case, and the registered ops the cases ran."""
    import engine.compat.torch as dagscope_torch
    from engine.hooks import OP_APPLIED
    ran: set[str] = set()

    def observe(op, inputs, attrs, out):
        ran.add(op.name)
    OP_APPLIED.append(observe)
    try:
        return names(dagscope_torch, EXPECTED, node_name), ran
    finally:
        OP_APPLIED.remove(observe)


@pytest.mark.parametrize("expr", [
    pytest.param(e, marks=pytest.mark.xfail(strict=True, reason=KNOWN_MISMATCHES[e])) if e in KNOWN_MISMATCHES
    else e for e in EXPECTED])
def test_grad_fn_name_is_pytorchs(dagscope_run, expr):
    assert dagscope_run[0][expr] == EXPECTED[expr]


def test_the_cases_run_every_differentiable_op_of_these_families(dagscope_run):
    from engine.ops import OPS
    modules = {f"engine.ops.{family}" for family in FAMILIES}
    ops = {name for name, op in OPS.items() if op.differentiable and op.vjp.__module__ in modules}
    assert len(ops) > 50
    assert ops <= dagscope_run[1]


def test_every_known_mismatch_is_a_case():
    assert set(KNOWN_MISMATCHES) <= set(EXPECTED)


@pytest.mark.parametrize("attrs,expected,grad", [
    ({"min": 0.0, "max": 1.0}, "ClampBackward1", [0.0, 1.0, 0.0]),
    ({"min": 0.0, "max": None}, "ClampBackward1", [0.0, 1.0, 1.0]),
    ({"min": 0.0, "fn": "clamp_min"}, "ClampMinBackward0", [0.0, 1.0, 1.0]),
    ({"max": 1.0, "fn": "clamp_max"}, "ClampMaxBackward0", [1.0, 1.0, 0.0])])
def test_clamp_is_named_after_the_function_its_caller_ran(attrs, expected, grad):
    """What tensor.py's clamp_min/clamp_max need to pass: fn changes the name, never the values."""
    from engine.tensor import Tensor, apply
    x = Tensor(np.array([-1.0, 0.5, 2.0], np.float32), requires_grad=True)
    out = apply("clamp", x, **attrs)
    assert node_name(out.grad_fn) == expected
    out.sum().backward()
    assert x.grad.tolist() == grad


@pytest.mark.parametrize("ndim,fn,expected", [
    (2, "t", "TBackward0"), (2, "transpose", "TransposeBackward0"), (2, None, "TransposeBackward0"),
    (3, "transpose", "TransposeBackward0"), (3, None, "TransposeBackward0")])
def test_transpose_is_named_after_the_function_its_caller_ran(ndim, fn, expected):
    """What tensor.py's t()/transpose/mT need to pass: fn='t' for x.t(), fn='transpose' for the others."""
    from engine.tensor import Tensor, apply
    x = Tensor(np.ones((2, 3, 4)[:ndim], np.float32), requires_grad=True)
    out = apply("transpose", x, dim0=0, dim1=1, **({} if fn is None else {"fn": fn}))
    assert node_name(out.grad_fn) == expected
    assert out.shape == (3, 2, 4)[:ndim]


@pytest.mark.parametrize("fn,expected", [("reshape", "ReshapeAliasBackward0"), ("view", "ViewBackward0"),
                                         (None, "ViewBackward0")])
def test_reshape_of_a_strided_tensor_is_named_after_the_function_its_caller_ran(fn, expected):
    """What tensor.py's reshape needs to pass (fn='reshape'); x.view may pass fn='view'."""
    from engine.tensor import Tensor, apply
    x = Tensor(np.ones((2, 3, 4), np.float32), requires_grad=True)
    strided = apply("transpose", x, dim0=0, dim1=1)                 # (3, 2, 4), not contiguous
    out = apply("reshape", strided, shape=(3, 2, 2, 2), **({} if fn is None else {"fn": fn}))
    assert node_name(out.grad_fn) == expected
    assert np.shares_memory(out.array, x.array)


@pytest.mark.parametrize("fn,expected", [("bmm", "BmmBackward0"), ("matmul", "UnsafeViewBackward0"),
                                         (None, "UnsafeViewBackward0")])
def test_batched_matmul_is_named_after_the_function_its_caller_ran(fn, expected):
    """functional.bmm passes fn='bmm'; `@` of 3-D tensors (no fn) is UnsafeViewBackward0."""
    from engine.tensor import Tensor, apply
    a = Tensor(np.ones((2, 3, 4), np.float32), requires_grad=True)
    out = apply("matmul", a, Tensor(np.ones((2, 4, 5), np.float32)), **({} if fn is None else {"fn": fn}))
    assert node_name(out.grad_fn) == expected
    assert out.shape == (2, 3, 5)


@pytest.mark.torch
def test_the_stored_names_are_what_pytorch_records_now(real_torch):
    torch = real_torch
    assert names(torch, EXPECTED, lambda fn: None if fn is None else type(fn).__name__) == EXPECTED


if __name__ == "__main__" and sys.argv[1:] == ["--record"]:
    import torch as real_torch
    recorded = names(real_torch, EXPECTED, lambda fn: None if fn is None else type(fn).__name__)
    for expr, name in recorded.items():
        if name != EXPECTED[expr]:
            print(f"    {expr!r}: {name!r},")
