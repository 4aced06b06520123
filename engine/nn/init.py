"""nn.init: in-place initializers with PyTorch's formulas (gains, fans, bounds), drawn from the
engine's PyTorch-compatible generator (engine.random_pytorch), so after torch.manual_seed the values
are the ones PyTorch draws."""
from __future__ import annotations

import math

import numpy as np

from engine import creation
from engine.ops.dtypes import scalar_type_name
from engine.tensor import Tensor


def calculate_gain(nonlinearity: str, param=None) -> float:
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d")
    if nonlinearity in linear or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif isinstance(param, (int, float)) and not isinstance(param, bool):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    shape = tensor.array.shape
    if len(shape) < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 dimensions")
    receptive = int(np.prod(shape[2:], dtype=np.int64)) if len(shape) > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of {['fan_in', 'fan_out']}")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _fill(tensor: Tensor, values: np.ndarray) -> Tensor:
    # In place, like PyTorch's `with torch.no_grad(): tensor.uniform_(...)`: views of it see the change.
    np.copyto(tensor.array, values.astype(tensor.array.dtype, copy=False))
    return tensor


def _require_float(tensor: Tensor, kernel: str) -> None:
    """PyTorch's random kernels exist for floating tensors only; an integer or bool tensor is refused."""
    if tensor.array.dtype.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{scalar_type_name(tensor.array.dtype)}\'')


def _fill_drawn(tensor: Tensor, draw) -> Tensor:
    """Fill in place with draw(shape, contiguous, into) values, visiting the tensor in memory order as
    PyTorch's in-place random kernels do (a transposed weight gets its draws in its layout's order).
    The generator may draw straight into the storage (`into`) and return it: then there is no copy."""
    arr = tensor.array
    view = arr.transpose(creation.layout_axes(arr))
    values = draw(view.shape, arr.flags.c_contiguous, view)
    if values is not view:
        np.copyto(view, values.astype(arr.dtype, copy=False))
    return tensor


def uniform_(tensor: Tensor, a: float = 0.0, b: float = 1.0, generator=None) -> Tensor:
    _require_float(tensor, "check_uniform_bounds")
    dtype = _draw_dtype(tensor)
    return _fill_drawn(tensor, lambda shape, _, into: creation.rng(generator).uniform(a, b, shape, dtype, into))


def normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator=None) -> Tensor:
    _require_float(tensor, "normal_kernel_cpu")
    dtype = _draw_dtype(tensor)
    return _fill_drawn(tensor, lambda shape, contiguous, into: creation.normal_draws(
        creation.rng(generator), mean, std, shape, dtype, contiguous, into))


def trunc_normal_(tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
                  generator=None) -> Tensor:
    """PyTorch's rejection sampling, draw for draw: when [a, b] holds more than 30% of the normal's mass,
    normal values with the rejected ones redrawn (a whole tensor of draws per round); otherwise uniform
    proposals in [a, b], each accepted with probability pdf / peak. Every round draws into a tensor laid
    out as this one, so all of it runs in the tensor's visiting order."""
    _require_float(tensor, "normal_kernel_cpu")
    rng, dtype = creation.rng(generator), _draw_dtype(tensor)

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    def draw(shape, contiguous, into=None):          # (rejection rounds: never drawn in place)
        if norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std) > 0.3:
            lo, hi = dtype.type(a), dtype.type(b)
            result = creation.normal_draws(rng, mean, std, shape, dtype, contiguous)
            while True:
                rejected = (result < lo) | (result > hi)
                if not rejected.any():
                    return result
                result = np.where(rejected, creation.normal_draws(rng, mean, std, shape, dtype, contiguous), result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_ratio(x):          # log(pdf(x) / pdf(mode)), in the tensor's dtype as PyTorch's in-place ops
            return ((x - dtype.type(mean)) / dtype.type(std)) ** 2 * dtype.type(-0.5) - dtype.type(log_peak)

        result = rng.uniform(a, b, shape, dtype)
        pending = np.log(rng.uniform(0.0, 1.0, shape, dtype)) > log_ratio(result)
        while pending.any():
            candidates = rng.uniform(a, b, shape, dtype)
            result = np.where(pending, candidates, result)
            pending = np.where(pending, np.log(rng.uniform(0.0, 1.0, shape, dtype)) > log_ratio(candidates), pending)
        return result

    return _fill_drawn(tensor, draw)


def _draw_dtype(tensor: Tensor) -> np.dtype:
    """PyTorch's kernels draw float64 tensors with 53-bit uniforms, every other float with 24."""
    return np.dtype(np.float64) if tensor.array.dtype == np.float64 else np.dtype(np.float32)


def constant_(tensor: Tensor, val: float) -> Tensor:
    tensor.array[...] = val
    return tensor


def zeros_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 0)


def ones_(tensor: Tensor) -> Tensor:
    return constant_(tensor, 1)


def eye_(tensor: Tensor) -> Tensor:
    if tensor.array.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _fill(tensor, np.eye(*tensor.array.shape))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """A convolution kernel that passes each input channel through unchanged (per group)."""
    shape = tensor.array.shape
    if len(shape) not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    if shape[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = shape[0] // groups
    centre = tuple(k // 2 for k in shape[2:])
    values = np.zeros(shape)
    for g in range(groups):
        for d in range(min(per_group, shape[1])):
            values[(g * per_group + d, d) + centre] = 1
    return _fill(tensor, values)


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    """A (semi-)orthogonal matrix from the QR decomposition of a normal one, signs fixed so the
    distribution is uniform, as PyTorch computes it."""
    shape = tensor.array.shape
    if len(shape) < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.array.size == 0:
        return tensor
    _require_float(tensor, "normal_kernel_cpu")
    rows = shape[0]
    flat = creation.rng(generator).normal(0.0, 1.0, (rows, tensor.array.size // rows),
                                          _draw_dtype(tensor)).astype(np.float64)
    wide = rows < flat.shape[1]
    q, r = np.linalg.qr(flat.T if wide else flat)
    q = q * np.sign(np.diag(r))
    return _fill(tensor, (q.T if wide else q).reshape(shape) * gain)


def xavier_uniform_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    bound = math.sqrt(3.0) * std        # in PyTorch's order of operations: the bound is bit-identical
    return uniform_(tensor, -bound, bound, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator=None) -> Tensor:
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                     generator=None) -> Tensor:
    if 0 in tensor.array.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
                    generator=None) -> Tensor:
    if 0 in tensor.array.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def default_linear_init(weight: Tensor, bias: Tensor | None) -> None:
    """What nn.Linear and nn.Conv2d do in reset_parameters: kaiming_uniform(a=sqrt(5)) weights,
    biases uniform in +-1/sqrt(fan_in)."""
    kaiming_uniform_(weight, a=math.sqrt(5))
    if bias is not None:
        fan_in, _ = _calculate_fan_in_and_fan_out(weight)
        bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
        uniform_(bias, -bound, bound)
