"""Differential tests against real PyTorch (skipped unless `import torch` finds the real library):
every op case of op_cases that has a torch counterpart: forward values, input gradients and grad_fn names."""
from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch")
if "dagscope" in getattr(torch, "__version__", ""):
    pytest.skip("torch is Dagscope's own facade here, not the real library", allow_module_level=True)

from engine.backward import run_backward  # noqa: E402
from engine.ops import OPS  # noqa: E402
from engine.tensor import Tensor, apply  # noqa: E402
from tests.engine.op_cases import CASES  # noqa: E402

pytestmark = pytest.mark.torch
TF = torch.nn.functional


def _dim(attrs):
    return attrs.get("dim")


def _reduce(fn):
    def call(x, dim=None, keepdim=False, **kw):
        return fn(x, **kw) if dim is None else fn(x, dim=dim, keepdim=keepdim, **kw)
    return call


ORACLE = {
    "add": torch.add, "sub": torch.sub, "mul": torch.mul, "div": torch.div, "maximum": torch.maximum,
    "minimum": torch.minimum, "pow": torch.pow, "remainder": torch.remainder,
    "pow_scalar": lambda x, exponent: torch.pow(x, exponent),
    **{n: getattr(torch, n) for n in ("neg", "exp", "log", "sqrt", "abs", "tanh", "sigmoid", "relu", "erf", "sin",
                                      "cos", "floor", "ceil", "round")},
    "gelu": lambda x, approximate: TF.gelu(x, approximate=approximate),
    "softplus": lambda x, beta, threshold: TF.softplus(x, beta, threshold),
    "clamp": lambda x, min=None, max=None: torch.clamp(x, min, max),
    "where": torch.where, "matmul": torch.matmul,
    "sum": _reduce(torch.sum), "mean": _reduce(torch.mean),
    "max": lambda x, dim=None, keepdim=False: torch.max(x) if dim is None else torch.max(x, dim, keepdim).values,
    "min": lambda x, dim=None, keepdim=False: torch.min(x) if dim is None else torch.min(x, dim, keepdim).values,
    "amax": lambda x, dim=None, keepdim=False: torch.amax(x, () if dim is None else dim, keepdim),
    "amin": lambda x, dim=None, keepdim=False: torch.amin(x, () if dim is None else dim, keepdim),
    "var": lambda x, dim=None, correction=1, keepdim=False: torch.var(x, dim, correction=correction, keepdim=keepdim),
    "std": lambda x, dim=None, correction=1, keepdim=False: torch.std(x, dim, correction=correction, keepdim=keepdim),
    "logsumexp": lambda x, dim, keepdim=False: torch.logsumexp(x, dim, keepdim),
    "softmax": lambda x, dim: torch.softmax(x, dim), "log_softmax": lambda x, dim: torch.log_softmax(x, dim),
    "conv2d": lambda x, w, *b, stride, padding: TF.conv2d(x, w, b[0] if b else None, stride, padding),
    "max_pool2d": lambda x, kernel_size, stride, padding, ceil_mode=False: TF.max_pool2d(
        x, kernel_size, stride, padding, ceil_mode=ceil_mode),
    "avg_pool2d": lambda x, kernel_size, stride, padding, ceil_mode=False, count_include_pad=True,
    divisor_override=None: TF.avg_pool2d(x, kernel_size, stride, padding, ceil_mode, count_include_pad,
                                         divisor_override),
    "mse_loss": lambda a, b, reduction: TF.mse_loss(a, b, reduction=reduction),
    "nll_loss": lambda lp, t, *w, reduction, ignore_index: TF.nll_loss(lp, t, w[0] if w else None,
                                                                        ignore_index=ignore_index, reduction=reduction),
    "gather": lambda x, index, dim: torch.gather(x, dim, index),
    "leaky_relu": lambda x, negative_slope: TF.leaky_relu(x, negative_slope), "silu": TF.silu,
    "hardtanh": lambda x, min_val, max_val: TF.hardtanh(x, min_val, max_val), "hardswish": TF.hardswish,
    "hardsigmoid": TF.hardsigmoid, "mish": TF.mish,
    # aten's elu takes selu's scale and input_scale too (F.elu does not)
    "elu": lambda x, alpha, scale=1.0, input_scale=1.0: torch.ops.aten.elu(x, alpha, scale, input_scale),
    "celu": lambda x, alpha: TF.celu(x, alpha), "log_sigmoid": TF.logsigmoid,
    **{n: getattr(torch, n) for n in ("isinf", "isposinf", "isneginf", "isfinite")},
    "convolution": lambda x, w, *b, stride, padding, dilation, groups, transposed=False, output_padding=None:
        torch.convolution(x, w, b[0] if b else None, stride, padding, dilation, transposed,
                          output_padding or [0] * len(stride), groups),
    "pad": lambda x, pad, mode, value: TF.pad(x, pad, mode, value if mode == "constant" else None),
    "interpolate": lambda x, size, mode, align_corners=None, scales=None: torch.ops.aten.__dict__[
        {"nearest": "upsample_nearest", "nearest-exact": "_upsample_nearest_exact", "linear": "upsample_linear",
         "bilinear": "upsample_bilinear", "bicubic": "upsample_bicubic"}[mode] + f"{len(size)}d"](x, size, *([align_corners] if align_corners
                                                                              is not None else []), *(scales or ())),
    "native_group_norm": lambda x, *p, groups, eps, has_weight, has_bias: TF.group_norm(
        x, groups, *_affine(p, has_weight, has_bias), eps=eps),
    "flip": lambda x, dims: torch.flip(x, dims),
    "roll": lambda x, shifts, dims: torch.roll(x, shifts, dims if dims is not None else None),
    "cumprod": lambda x, dim, dtype=None: torch.cumprod(x, dim, dtype=getattr(torch, dtype) if dtype else None),
    "native_layer_norm": lambda x, *p, normalized_ndim, eps, has_weight, has_bias: TF.layer_norm(
        x, x.shape[x.dim() - normalized_ndim:], *_affine(p, has_weight, has_bias), eps=eps),
    "native_batch_norm": lambda x, *p, training, eps, has_weight, has_bias: TF.batch_norm(
        x, *(p[-2:] if not training else (None, None)), *_affine(p, has_weight, has_bias), training=training,
        eps=eps),
    "adaptive_avg_pool2d": lambda x, output_size: TF.adaptive_avg_pool2d(x, output_size),
    "sort": lambda x, indices, dim: _check_indices(torch.sort(x, dim, descending=_descending(x, indices, dim)),
                                                   indices),
    "topk": lambda x, indices, dim: _check_indices(torch.topk(x, indices.shape[dim], dim,
                                                              largest=_descending(x, indices, dim)), indices),
    "cummax": lambda x, indices, dim: _check_indices(torch.cummax(x, dim), indices),
    "cummin": lambda x, indices, dim: _check_indices(torch.cummin(x, dim), indices),
    "kthvalue": lambda x, indices, dim, keepdim: _check_indices(
        torch.kthvalue(x, _kth(x, indices, dim, keepdim), dim, keepdim), indices),
    "median_dim": lambda x, indices, dim, keepdim: _check_indices(torch.median(x, dim, keepdim), indices),
    "mode": lambda x, indices, dim, keepdim: _check_indices(torch.mode(x, dim, keepdim), indices),
    "median": torch.median,
    "smooth_l1_loss": lambda a, b, reduction, beta: TF.smooth_l1_loss(a, b, reduction=reduction, beta=beta),
    "huber_loss": lambda a, b, reduction, delta: TF.huber_loss(a, b, reduction=reduction, delta=delta),
    "embedding": lambda idx, w, padding_idx: TF.embedding(idx, w, padding_idx),
    "cholesky": torch.linalg.cholesky,
    "triangular_solve": lambda a, b, transpose=False: torch.linalg.solve_triangular(
        a.mT if transpose else a, b, upper=transpose),
    "binary_cross_entropy": lambda p, y, w, reduction: TF.binary_cross_entropy(p, y, w.expand_as(p), reduction=reduction),
    "binary_cross_entropy_with_logits": lambda x, y, w, pw, reduction: TF.binary_cross_entropy_with_logits(
        x, y, w.expand_as(x), reduction=reduction, pos_weight=pw),
}


def _affine(params, has_weight, has_bias):
    """(weight, bias) of a normalization case, None where the case has none."""
    weight = params[0] if has_weight else None
    return weight, (params[int(has_weight)] if has_bias else None)


def _descending(x, indices, dim):
    """Whether a sort/topk case's indices put the largest value first (k = 0: either way)."""
    if indices.shape[dim] == 0:
        return False
    first, last = (torch.gather(x, dim, indices.narrow(dim, i, 1)) for i in (0, indices.shape[dim] - 1))
    return bool((first > last).all()) if indices.shape[dim] > 1 else bool((first == x.amax(dim, True)).all())


def _kth(x, indices, dim, keepdim):
    """k of a kthvalue case (values distinct): the rank of the value its indices pick, plus one."""
    picked = torch.gather(x, dim, indices if keepdim else indices.unsqueeze(dim))
    return int((x < picked).sum(dim).flatten()[0]) + 1


def _check_indices(result, indices):
    """PyTorch's values, after checking its indices are the case's (which the op reads as given)."""
    assert torch.equal(result.indices, indices)
    return result.values


# Ops whose grad_fn name depends on which torch function called them (torch.bmm and torch.matmul of
# the same 3-D operands record BmmBackward0 and UnsafeViewBackward0): the op case cannot say.
CALLER_NAMED = {"matmul"}


def _params():
    for name in sorted(ORACLE):
        for i, case in enumerate(CASES.get(name, [])):
            yield pytest.param(name, case, id=f"{name}-{i}")


@pytest.mark.parametrize("name,case", list(_params()))
def test_forward_and_gradients_equal_pytorchs(name, case):
    ours_in = [Tensor(a.copy(), requires_grad=i in case.diff) for i, a in enumerate(case.inputs)]
    theirs_in = [torch.tensor(a.copy(), requires_grad=i in case.diff) for i, a in enumerate(case.inputs)]
    ours = apply(name, *ours_in, **case.attrs)
    theirs = ORACLE[name](*theirs_in, **case.attrs)
    np.testing.assert_allclose(ours.array, theirs.detach().numpy(), rtol=1e-10, atol=1e-12)
    if not case.diff:
        return
    weights = np.random.default_rng(3).standard_normal(ours.array.shape)
    grads = run_backward([ours], [weights], inputs=[ours_in[i] for i in case.diff])
    (theirs * torch.tensor(weights)).sum().backward()
    for i, g in zip(case.diff, grads):
        np.testing.assert_allclose(g.array, theirs_in[i].grad.numpy(), rtol=1e-8, atol=1e-10,
                                   err_msg=f"gradient of input {i}")
    if name not in CALLER_NAMED:
        assert ours.grad_fn.name == type(theirs.grad_fn).__name__
