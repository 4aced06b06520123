"""Losses: each a registered op (so a printed loss shows PyTorch's grad_fn) or a composition of
registered ops (so its backward graph is real)."""
from __future__ import annotations

import warnings

import numpy as np

from engine import autograd
from engine.functional._common import _type_word
from engine.functional.elementwise import abs, add, div, eq, masked_fill, mul, ne, neg, sub
from engine.functional.index import getitem
from engine.functional.movement import reshape
from engine.functional.reduce import log_softmax, mean, sum
from engine.tensor import Tensor, _raise_broadcast_error, apply


def _reduction(size_average, reduce, reduction):
    if size_average is None and reduce is None:
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    return ("mean" if size_average else "sum") if reduce else "none"


def _reduce_loss(loss, reduction):
    if reduction == "mean":
        return mean(loss)
    if reduction == "sum":
        return sum(loss)
    if reduction == "none":
        return loss
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _float_pair(input, target, kernel: str):
    """input and target in one float dtype, as PyTorch's pointwise losses take them: an integer side
    takes the other's float dtype; two integer sides are an error naming the kernel."""
    kinds = input.array.dtype.kind + target.array.dtype.kind
    if kinds in ("fi", "fu", "fb"):       # PyTorch promotes an integer target to the input's float dtype
        target = target.to(input.dtype)
    elif kinds in ("if", "uf", "bf"):
        input = input.to(target.dtype)
    result = np.result_type(input.array, target.array)
    if result.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_type_word(Tensor(np.zeros(0, result)))}\'')
    return input, target


def _warn_if_broadcast(input, target) -> None:
    """PyTorch's warning (pointing at the caller's line) when a pointwise loss broadcasts its target,
    then its error when the shapes do not broadcast at all."""
    if tuple(target.array.shape) != tuple(input.array.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", UserWarning, stacklevel=3)
        _raise_broadcast_error(tuple(input.array.shape), tuple(target.array.shape))


def mse_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    _warn_if_broadcast(input, target)
    input, target = _float_pair(input, target, "mse_cpu")
    return apply("mse_loss", input, target, reduction=_reduction(size_average, reduce, reduction))


def l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean"):
    _warn_if_broadcast(input, target)
    return _reduce_loss(abs(sub(input, target)), _reduction(size_average, reduce, reduction))


def nll_loss(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
             reduction: str = "mean"):
    _check_nll_args(input, target, weight)
    reduction = _reduction(size_average, reduce, reduction)
    out_shape = None
    if input.ndim == 3 or input.ndim > 4:
        # PyTorch's nll_loss_nd: every input of more than 2 dims goes through the 4-D (image) kernel,
        # as (N, C, 1, rest) with the per-position losses viewed back ('none'): NllLoss2DBackward0
        n, c = input.array.shape[:2]
        out_shape = (n,) + tuple(input.array.shape[2:])
        flat = (1, -1) if input.numel() else (0, 0)
        input, target = reshape(input, (n, c) + flat), reshape(target, (n,) + flat)
    if weight is not None and weight.requires_grad and autograd._GradMode.enabled:
        kernel = "nll_loss2d_forward" if input.ndim > 2 else "nll_loss_forward"
        raise RuntimeError(f"The function '{kernel}' is not differentiable with respect to argument 'weight'. "
                           "This input cannot have requires_grad True.")
    args = (input, target) if weight is None else (input, target, weight)
    loss = apply("nll_loss", *args, reduction=reduction, ignore_index=int(ignore_index))
    return loss.view(out_shape) if out_shape is not None and reduction == "none" else loss


def _check_nll_args(input, target, weight) -> None:
    """The checks and wording of PyTorch's nll_loss_nd and nll_loss (numpy would index wrongly or fail
    with its own words)."""
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim != 1 and target.ndim >= 1 and input.array.shape[0] != target.array.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.array.shape[0]}) to match target batch_size "
                         f"({target.array.shape[0]}).")
    if input.ndim <= 2 and target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    if input.ndim >= 3 and target.array.shape[1:] != input.array.shape[2:]:
        expected = [input.array.shape[0], *input.array.shape[2:]]
        raise RuntimeError(f"Expected target size {expected}, got {list(target.array.shape)}")
    n_classes = input.array.shape[1 if input.ndim >= 2 else 0]
    if weight is not None and (weight.ndim != 1 or weight.numel() != n_classes):
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes or no classes but "
                           f"got weight tensor of shape: {list(weight.array.shape)}")
    if target.array.dtype not in (np.int64, np.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_type_word(target)}")


def cross_entropy(input, target, weight=None, size_average=None, ignore_index: int = -100, reduce=None,
                  reduction: str = "mean", label_smoothing: float = 0.0):
    reduction = _reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {float(label_smoothing):g}")
    class_dim = 1 if input.ndim >= 2 else 0
    logp = log_softmax(input, dim=class_dim)
    if tuple(target.array.shape) == tuple(input.array.shape):     # PyTorch's test for class probabilities
        if target.array.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_type_word(target)}")
        return _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing, class_dim)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    return _label_smoothed(nll, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim)


def _label_smoothed(nll, logp, target, weight, ignore_index, reduction, label_smoothing, class_dim):
    """PyTorch's cross_entropy_loss_label_smoothing: (1 - e) nll + e / C * the (weighted) sum of
    -logp over the classes, 0 at ignored targets; 'mean' divides by the count (or weight) of the
    counted targets, as nll_loss does."""
    ignored = eq(target, ignore_index)
    per_class = logp if weight is None else mul(logp, _class_view(weight, logp))
    smooth = masked_fill(neg(sum(per_class, dim=class_dim)), ignored, 0.0)
    if reduction == "mean":
        if weight is None:
            total = sum(ne(target, ignore_index))
        else:
            total = sum(getitem(weight, Tensor(target.array[~ignored.array])))
        smooth = div(sum(smooth), total)
    else:
        smooth = _reduce_loss(smooth, reduction)
    n_classes = logp.array.shape[class_dim]
    return add(mul(nll, 1.0 - label_smoothing), mul(smooth, label_smoothing / n_classes))


def _cross_entropy_probabilities(logp, target, weight, reduction, label_smoothing, class_dim):
    """PyTorch's composition (cross_entropy_loss_prob_target): -(logp * target * weight) summed, and
    for 'mean' divided by the number of samples (a number, not a tensor: DivBackward1)."""
    n_classes = logp.array.shape[class_dim]
    if label_smoothing:
        target = add(mul(target, 1.0 - label_smoothing), label_smoothing / n_classes)
    per = mul(logp, target) if weight is None else mul(mul(logp, target), _class_view(weight, logp))
    if reduction == "none":
        return neg(sum(per, dim=class_dim))
    if reduction == "sum":
        return neg(sum(per))
    if reduction == "mean":
        return apply("div_scalar", neg(sum(per)), divisor=logp.numel() // n_classes)
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _class_view(weight, input):
    return reshape(weight, (1, -1) + (1,) * (input.ndim - 2)) if input.ndim >= 2 else weight


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None, reduction: str = "mean"):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.shape}) that is different to the input size "
                         f"({input.shape}) is deprecated. Please ensure they have the same size.")
    if target.array.dtype != input.array.dtype:
        raise RuntimeError(f"Found dtype {_type_word(target)} but expected {_type_word(input)}")
    return apply("binary_cross_entropy", input, target, 1.0 if weight is None else weight,
                 reduction=_reduction(size_average, reduce, reduction))


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction: str = "mean", pos_weight=None):
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({target.shape}) must be the same as input size ({input.shape})")
    if target.array.dtype.kind != "f":      # the loss is written into a tensor of the target's dtype
        raise RuntimeError(f"result type {_type_word(input)} can't be cast to the desired output type "
                           f"{_type_word(target)}")
    return apply("binary_cross_entropy_with_logits", input, target, 1.0 if weight is None else weight,
                 1.0 if pos_weight is None else pos_weight, reduction=_reduction(size_average, reduce, reduction))


def huber_loss(input, target, reduction: str = "mean", delta: float = 1.0):
    _warn_if_broadcast(input, target)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _float_pair(input, target, "huber_cpu")
    if target.array.dtype != input.array.dtype:      # PyTorch's huber_loss computes in the input's dtype
        target = target.to(input.dtype)
    return apply("huber_loss", input, target, reduction=_reduction(None, None, reduction), delta=float(delta))


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction: str = "mean", beta: float = 1.0):
    _warn_if_broadcast(input, target)
    reduction = _reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:           # PyTorch computes an l1_loss then (without a second warning)
        return _reduce_loss(abs(sub(input, target)), reduction)
    input, target = _float_pair(input, target, "smooth_l1_cpu")
    return apply("smooth_l1_loss", input, target, reduction=reduction, beta=float(beta))
