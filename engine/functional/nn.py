"""Layers' functions: conv2d, pooling, dropout, embedding, one_hot, normalize, layer_norm, batch_norm."""
from __future__ import annotations

import builtins
import warnings

import numpy as np

from engine import autograd
from engine.creation import draw_in_layout, is_dense, rng
from engine.errors import UnsupportedError
from engine.functional._common import _c_type_name, _dim, _require_float, _type_word
from engine.functional.elementwise import clamp, div
from engine.functional.movement import reshape, squeeze, unsqueeze
from engine.functional.reduce import mean, var
from engine.tensor import Tensor, apply


def _unsupported(name, **options):
    bad = {k: v for k, v in options.items() if v}
    if bad:
        raise UnsupportedError(f"{name} with {', '.join(f'{k}={v!r}' for k, v in bad.items())} is not "
                               "supported by Dagscope")


def _pair(v):
    return (int(v), int(v)) if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)


def _tuple(v, n: int) -> tuple:
    return (int(v),) * n if isinstance(v, (int, np.integer)) else tuple(int(i) for i in v)


def _padding_words(padding, weight, stride, dilation, nd: int, name: str):
    """padding='valid' / 'same' as numbers (same: an odd total span only; PyTorch pads an even one unevenly)."""
    if not isinstance(padding, str):
        return _tuple(padding, nd)
    if padding == "valid":
        return (0,) * nd
    if padding != "same":
        raise ValueError(f"Invalid padding string '{padding}', should be one of {{'valid', 'same'}}")
    if _tuple(stride, nd) != (1,) * nd:
        raise RuntimeError("padding='same' is not supported for strided convolutions")
    spans = [d * (k - 1) for k, d in zip(weight.array.shape[2:], _tuple(dilation, nd))]
    if any(t % 2 for t in spans):
        raise UnsupportedError(f"{name} padding='same' with an even kernel size is not supported")
    return tuple(t // 2 for t in spans)


def _convolution(name: str, nd: int, input, weight, bias, stride, padding, dilation, groups, transposed=False,
                 output_padding=0):
    """torch's convolution for nd = 1 or 2: unbatched input gets a batch dim of 1 (and loses it again)."""
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got input "
                           f"of size: {list(input.shape)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"weight should have at least three dimensions" if nd == 1 else
                           f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    unbatched = input.ndim == nd + 1
    x = unsqueeze(input, 0) if unbatched else input
    args = (x, weight) if bias is None else (x, weight, bias)
    out = apply("convolution", *args, stride=_tuple(stride, nd), padding=padding, dilation=_tuple(dilation, nd),
                groups=int(groups), transposed=transposed,
                output_padding=_tuple(output_padding, nd) if transposed else None)
    return squeeze(out, 0) if unbatched else out


def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    padding = _padding_words(padding, weight, stride, dilation, 1, "conv1d")
    return _convolution("conv1d", 1, input, weight, bias, stride, padding, dilation, groups)


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _convolution("conv_transpose1d", 1, input, weight, bias, stride, _tuple(padding, 1), dilation, groups,
                        True, output_padding)


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1, dilation=1):
    return _convolution("conv_transpose2d", 2, input, weight, bias, stride, _tuple(padding, 2), dilation, groups,
                        True, output_padding)


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    padding = _padding_words(padding, weight, stride, dilation, 2, "conv2d")
    if _pair(dilation) != (1, 1) or groups != 1:
        # (the general op; plain conv2d stays the op the code generator lowers specially)
        return _convolution("conv2d", 2, input, weight, bias, stride, padding, dilation, groups)
    _check_conv2d_shapes(input, weight, bias, _pair(stride), _pair(padding))
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    args = (x, weight) if bias is None else (x, weight, bias)
    out = apply("conv2d", *args, stride=_pair(stride), padding=_pair(padding))
    return squeeze(out, 0) if unbatched else out


def _check_conv2d_shapes(input, weight, bias, stride, padding) -> None:
    """PyTorch's wording for the shape mistakes a conv2d call can make (the channel check is the op's)."""
    if input.ndim not in (3, 4):
        raise RuntimeError("Expected 3D (unbatched) or 4D (batched) input to conv2d, but got input of size: "
                           f"{list(input.array.shape)}")
    if weight.ndim == 3:     # PyTorch reads a 3-D weight as a 1-D convolution's, with one stride value
        raise RuntimeError("expected stride to be a single integer value or a list of 1 values to match the "
                           f"convolution dimensions, but got stride={list(stride)}")
    if bias is not None and (bias.ndim != 1 or bias.array.shape[0] != weight.array.shape[0]):
        raise RuntimeError(f"Given weight of size {list(weight.array.shape)}, expected bias to be 1-dimensional "
                           f"with {weight.array.shape[0]} elements, but got bias of size {list(bias.array.shape)} "
                           "instead")
    if bias is not None and bias.array.dtype != input.array.dtype:
        raise RuntimeError(f"Input type ({_c_type_name(input)}) and bias type ({_c_type_name(bias)}) should be the "
                           "same")
    if weight.array.dtype != input.array.dtype:
        raise RuntimeError(f"expected scalar type {_type_word(input)} but found {_type_word(weight)}")
    padded = [size + 2 * pad for size, pad in zip(input.array.shape[-2:], padding)]
    kernel = weight.array.shape[2:]
    if padded[0] < kernel[0] or padded[1] < kernel[1]:
        raise RuntimeError(f"Calculated padded input size per channel: ({padded[0]} x {padded[1]}). Kernel size: "
                           f"({kernel[0]} x {kernel[1]}). Kernel size can't be greater than actual input size")


def _pool(name, input, kernel_size, stride, padding, **attrs):
    stride = kernel_size if stride is None or stride == [] or stride == () else stride
    _check_pool_shapes(input, _pair(kernel_size), _pair(stride), _pair(padding), attrs.get("ceil_mode", False))
    unbatched = input.ndim == 3
    x = unsqueeze(input, 0) if unbatched else input
    out = apply(name, x, kernel_size=_pair(kernel_size), stride=_pair(stride), padding=_pair(padding), **attrs)
    return squeeze(out, 0) if unbatched else out


def _check_pool_shapes(input, kernel, stride, padding, ceil_mode=False) -> None:
    """PyTorch's wording for a pooling window that does not fit the input."""
    if input.ndim not in (3, 4) or input.numel() == 0:
        raise RuntimeError("non-empty 3D or 4D (batch mode) tensor expected for input")
    if padding[0] > kernel[0] // 2 or padding[1] > kernel[1] // 2:
        pad, size = (padding[0], kernel[0]) if padding[0] > kernel[0] // 2 else (padding[1], kernel[1])
        raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={pad}, "
                           f"kernel_size={size} and dilation=1")
    channels, height, width = input.array.shape[-3:]
    out = [(size + 2 * pad - k + (s - 1 if ceil_mode else 0)) // s + 1
           for size, pad, k, s in zip((height, width), padding, kernel, stride)]
    if ceil_mode:       # (the last window must start inside the input or its left padding)
        out = [o - 1 if (o - 1) * s >= size + pad else o
               for o, size, pad, s in zip(out, (height, width), padding, stride)]
    if out[0] < 1 or out[1] < 1:
        raise RuntimeError(f"Given input size: ({channels}x{height}x{width}). Calculated output size: "
                           f"({channels}x{out[0]}x{out[1]}). Output size is too small")


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    _unsupported("max_pool2d", dilation=_pair(dilation) != (1, 1) and dilation)
    options = {"ceil_mode": True} if ceil_mode else {}
    out = _pool("max_pool2d", input, kernel_size, stride, padding, **options)
    if not return_indices:
        return out
    return out, _pool("max_pool2d_indices", input, kernel_size, stride, padding, **options)


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True,
               divisor_override=None):
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    options = {k: v for k, v in (("ceil_mode", bool(ceil_mode)), ("count_include_pad", bool(count_include_pad)),
                                 ("divisor_override", divisor_override))
               if v != {"ceil_mode": False, "count_include_pad": True, "divisor_override": None}[k]}
    return _pool("avg_pool2d", input, kernel_size, stride, padding, **options)


def _single(v, name: str) -> int:
    if isinstance(v, (list, tuple)):
        if len(v) != 1:
            raise RuntimeError(f"{name}: {name.split('_')[0]} must be a single int, or a tuple of one int")
        v = v[0]
    return int(v)


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False, return_indices=False):
    """As ATen computes it: max_pool2d over input.unsqueeze(-2) with a 1 x k window, then squeeze(-2)
    (grad_fn SqueezeBackward1 over MaxPool2DWithIndicesBackward0, as PyTorch's)."""
    k = _single(kernel_size, "max_pool1d_kernel_size")
    s = k if stride is None or stride == [] or stride == () else _single(stride, "max_pool1d_stride")
    out = max_pool2d(unsqueeze(input, -2), (1, k), (1, s), (0, _single(padding, "max_pool1d_padding")),
                     (1, _single(dilation, "max_pool1d_dilation")), ceil_mode, return_indices)
    if return_indices:
        return squeeze(out[0], -2), squeeze(out[1], -2)
    return squeeze(out, -2)


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False, count_include_pad=True):
    """avg_pool2d over input.unsqueeze(-2) with a 1 x k window, then squeeze(-2), as ATen's."""
    k = _single(kernel_size, "avg_pool1d_kernel_size")
    s = k if stride is None or stride == [] or stride == () else _single(stride, "avg_pool1d_stride")
    out = avg_pool2d(unsqueeze(input, -2), (1, k), (1, s), (0, _single(padding, "avg_pool1d_padding")), ceil_mode,
                     count_include_pad)
    return squeeze(out, -2)


def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if p < 0 or p > 1:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0:
        return input
    # PyTorch's CPU dropout: noise = empty_like(input).bernoulli_(1 - p) (an element is kept where a
    # double uniform is below 1 - p; drawn in the input's memory order, which empty_like keeps when it
    # is dense: a transposed input gets the transposed mask), out = input * noise / (1 - p); for
    # p == 1 it multiplies by zero and draws nothing
    shape = input.array.shape
    if p == 1:
        mask = np.zeros(shape, np.bool_)
    elif is_dense(input.array):
        mask = draw_in_layout(input.array, lambda drawn_shape, contiguous: rng().bernoulli(1 - p, drawn_shape))
    else:
        mask = rng().bernoulli(1 - p, shape)
    mask = Tensor(mask)
    if inplace:
        return input._inplace("dropout", mask, p=float(p))
    return apply("dropout", input, mask, p=float(p))


def refuse_embedding_options(max_norm, scale_grad_by_freq, sparse) -> None:
    """Embedding's options Dagscope does not have, each named with what to write instead."""
    if sparse:
        raise UnsupportedError("nn.Embedding(sparse=True) is not supported by Dagscope: its weight's gradient would "
                               "be a sparse tensor (torch.sparse_coo), and Dagscope has dense tensors only. With "
                               "sparse=False the weight gets the same gradient values, as a dense tensor (and any "
                               "optimizer takes it, where PyTorch's sparse gradient needs SGD, Adagrad or SparseAdam).")
    if max_norm is not None:
        raise UnsupportedError("nn.Embedding(max_norm=...) is not supported by Dagscope (PyTorch renormalises the "
                               "rows it reads in place); plain Embedding(num, dim, padding_idx=...) is.")
    if scale_grad_by_freq:
        raise UnsupportedError("nn.Embedding(scale_grad_by_freq=True) is not supported by Dagscope; plain "
                               "Embedding(num, dim, padding_idx=...) is.")


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0, scale_grad_by_freq=False,
              sparse=False):
    refuse_embedding_options(max_norm, scale_grad_by_freq, sparse)
    indices = input.array
    if indices.dtype.kind not in "iu":
        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got torch.{_type_word(input)}Tensor instead (while checking arguments "
                           "for embedding)")
    # (numpy would read a negative index from the end: a silently wrong row)
    if indices.size and (indices.min() < 0 or indices.max() >= weight.array.shape[0]):
        raise IndexError("index out of range in self")
    return apply("embedding", input, weight, padding_idx=padding_idx)


def one_hot(tensor, num_classes: int = -1):
    if tensor.array.dtype != np.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if tensor.array.size and tensor.array.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        num_classes = int(tensor.array.max()) + 1 if tensor.array.size else 0
    return apply("one_hot", tensor, num_classes=int(num_classes))


def normalize(input, p: float = 2.0, dim: int = 1, eps: float = 1e-12):
    """input / max(||input||_p along dim, eps), as PyTorch (its vector norm, then clamp_min)."""
    norm = apply("norm", input, p=float(p), dim=(_dim(dim, input.ndim),), keepdim=True)
    return div(input, clamp(norm, min=eps, fn="clamp_min").expand(*input.array.shape))   # (expand_as, as PyTorch)


def group_norm(input, num_groups: int, weight=None, bias=None, eps: float = 1e-5):
    """PyTorch's native_group_norm: statistics per sample over each group of channels (and all positions)."""
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and (p.ndim != 1 or p.shape[0] != c):
            raise RuntimeError(f"Expected {name} to be a vector of size equal to the number of channels in input, but "
                               f"got {name} of shape {list(p.shape)} and input of shape {list(input.shape)}")
    _require_float(input, "GroupNormKernelImpl")
    params = tuple(p for p in (weight, bias) if p is not None)
    return apply("native_group_norm", input, *params, groups=int(num_groups), eps=float(eps),
                 has_weight=weight is not None, has_bias=bias is not None)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    """PyTorch's native_layer_norm: one op over the last len(normalized_shape) dims."""
    normalized_shape = (int(normalized_shape),) if isinstance(normalized_shape, (int, np.integer)) \
        else tuple(normalized_shape)
    if tuple(input.array.shape[input.ndim - len(normalized_shape):]) != normalized_shape or \
            len(normalized_shape) > input.ndim:
        shape = ", ".join(str(n) for n in normalized_shape)
        raise RuntimeError(f"Given normalized_shape=[{shape}], expected input with shape [*, {shape}], but got "
                           f"input of size{list(input.array.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.array.shape) != normalized_shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p.array.shape)} and normalized_shape = {list(normalized_shape)}")
    if any(p is not None and p.array.dtype != input.array.dtype for p in (weight, bias)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    _require_float(input, "LayerNormKernelImpl")
    params = tuple(p for p in (weight, bias) if p is not None)
    return apply("native_layer_norm", input, *params, normalized_ndim=len(normalized_shape), eps=float(eps),
                 has_weight=weight is not None, has_bias=bias is not None)


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training: bool = False,
               momentum: float = 0.1, eps: float = 1e-5):
    """PyTorch's native_batch_norm: normalize over every dim but the channels (dim 1), one op. In
    training, batch statistics are used and the running ones updated in place (with the unbiased
    variance, as PyTorch does); in eval the running statistics are the op's inputs."""
    if input.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-builtins.max(input.ndim, 1)}, "
                         f"{builtins.max(input.ndim, 1) - 1}], but got 1)")
    dims = (0,) + tuple(range(2, input.ndim))
    channels = input.array.shape[1]
    if input.array.dtype.kind != "f":
        raise NotImplementedError(f'"batch_norm" not implemented for \'{_type_word(input)}\'')
    if any(p is not None and p.array.dtype != input.array.dtype for p in (weight, bias, running_mean, running_var)):
        raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
    for name, t in (("running_mean", running_mean), ("running_var", running_var)):
        if t is not None and t.numel() != channels:
            raise RuntimeError(f"{name} should contain {channels} elements not {t.numel()}")
    params = tuple(p for p in (weight, bias) if p is not None)
    if training:
        count = input.numel() // channels
        if count <= 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input size {input.shape}")
        if running_mean is not None or running_var is not None:
            with autograd.no_grad():
                _update_running_stats(input, running_mean, running_var, dims, count, momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError(f"running_{'mean' if running_mean is None else 'var'} must be defined in "
                               "evaluation mode")
        params += (running_mean, running_var)
    return apply("native_batch_norm", input, *params, training=bool(training), eps=float(eps),
                 has_weight=weight is not None, has_bias=bias is not None)


def _update_running_stats(input, running_mean, running_var, dims, count, momentum) -> None:
    """running = (1 - momentum) running + momentum batch statistic (the variance unbiased)."""
    if running_mean is not None:
        mu = mean(input, dim=dims, keepdim=True)
        running_mean.mul_(1 - momentum).add_(reshape(mu, (-1,)) * momentum)
    if running_var is not None:
        variance = var(input, dim=dims, keepdim=True, correction=0)
        unbiased = reshape(variance, (-1,)) * (count / (count - 1))
        running_var.mul_(1 - momentum).add_(unbiased * momentum)


# ---- pad / interpolate -------------------------------------------------------------------------------

def pad(input, pad, mode: str = "constant", value=None):
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode not in ("constant", "reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if mode != "constant":
        if value is not None and value != 0:
            raise RuntimeError(f"Padding mode \"{mode}\" doesn't take in value argument")
        n = len(pad) // 2
        if not (n <= 3 and input.ndim in (n + 1, n + 2)):
            raise NotImplementedError(f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
                                      "Supported combinations for non-constant padding:\n"
                                      "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
                                      "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
                                      "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
        for i in range(n):
            dim = input.ndim - 1 - i
            size, (left, right) = input.shape[dim], pad[2 * i:2 * i + 2]
            if mode == "reflect" and (left >= size or right >= size):
                raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding input dimension, "
                                   f"but got: padding ({left}, {right}) at dimension {dim} of input {list(input.shape)}")
            if mode == "circular" and (left > size or right > size):
                raise RuntimeError("Padding value causes wrapping around more than once.")
    for i in range(len(pad) // 2):
        if input.shape[input.ndim - 1 - i] + pad[2 * i] + pad[2 * i + 1] < 0:
            raise RuntimeError(f"The input size {input.shape[input.ndim - 1 - i]}, plus negative padding "
                               f"{pad[2 * i]} and {pad[2 * i + 1]} resulted in a negative output size, which is "
                               "invalid. Check dimension " f"{input.ndim - 1 - i} of your input.")
    return apply("pad", input, pad=pad, mode=mode, value=float(value or 0.0))


_INTERPOLATING = ("linear", "bilinear", "bicubic", "trilinear")
_NEEDS_DIMS = {"linear": 3, "bilinear": 4, "bicubic": 4, "trilinear": 5}


def interpolate(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False):
    if mode == "trilinear" or antialias:
        raise UnsupportedError(f"F.interpolate(mode={mode!r}{', antialias=True' if antialias else ''}) is not "
                               "supported by Dagscope: it has nearest, nearest-exact, linear, bilinear, bicubic "
                               "and area")
    if mode not in ("nearest", "nearest-exact", "linear", "bilinear", "bicubic", "area"):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  f"the modes: nearest | linear | bilinear | bicubic | trilinear | area | "
                                  f"nearest-exact (got {mode})")
    if mode in _INTERPOLATING:
        align_corners = bool(align_corners)
    elif align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: "
                         "linear | bilinear | bicubic | trilinear")
    nd = input.ndim - 2
    if mode in _NEEDS_DIMS and input.ndim != _NEEDS_DIMS[mode]:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {_NEEDS_DIMS[mode]}D input")
    if nd not in (1, 2):
        raise UnsupportedError(f"F.interpolate of a {input.ndim}-d input is not supported by Dagscope (3-d and 4-d "
                               "inputs are)")
    if (size is None) == (scale_factor is None):
        raise ValueError("only one of size or scale_factor should be defined" if size is not None else
                         "either size or scale_factor should be defined")
    if size is not None:
        size = tuple(int(s) for s in size) if isinstance(size, (tuple, list)) else (int(size),) * nd
        if len(size) != nd:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(input.shape[2:])} and output size of {list(size)}. Please "
                             "provide input tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                             "...,oK) format.")
        scales = None
    else:
        factors = tuple(float(f) for f in scale_factor) if isinstance(scale_factor, (tuple, list)) else \
            (float(scale_factor),) * nd
        size = tuple(int(np.floor(float(n) * f)) for n, f in zip(input.shape[2:], factors))
        scales = None if recompute_scale_factor else factors
    if mode == "area":          # PyTorch's area mode is adaptive average pooling to the size
        if nd == 2:
            return apply("adaptive_avg_pool2d", input, output_size=size)
        pooled = apply("adaptive_avg_pool2d", apply("unsqueeze", input, dim=2), output_size=(1, size[0]))
        return apply("squeeze", pooled, dim=2)
    return apply("interpolate", input, size=size, mode=mode, align_corners=align_corners if mode in _INTERPOLATING
                 else None, scales=scales)


def upsample(input, size=None, scale_factor=None, mode: str = "nearest", align_corners=None):
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return interpolate(input, size, scale_factor, mode, align_corners)
