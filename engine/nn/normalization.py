"""LayerNorm, GroupNorm, BatchNorm1d and BatchNorm2d: learnable affine parameters; BatchNorm keeps running statistics
(updated without gradient, as PyTorch does: the running variance uses the unbiased estimate)."""
from __future__ import annotations

import numpy as np

from engine import functional as F
from engine.nn.module import Module
from engine.nn.parameter import Parameter
from engine.tensor import Tensor


def _affine_parameters(module: Module, shape, affine: bool, bias: bool = True) -> None:
    """weight (ones) and bias (zeros) of the given shape, registered as None where absent, as PyTorch's norms."""
    if affine:
        module.weight = Parameter(np.ones(shape, np.float32))
        if bias:
            module.bias = Parameter(np.zeros(shape, np.float32))
        else:
            module.register_parameter("bias", None)
    else:
        module.register_parameter("weight", None)
        module.register_parameter("bias", None)


class GroupNorm(Module):
    def __init__(self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True, device=None,
                 dtype=None, *, bias: bool = True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
        self.num_groups, self.num_channels, self.eps, self.affine = num_groups, num_channels, eps, affine
        _affine_parameters(self, num_channels, affine, bias)

    def forward(self, input):
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps: float = 1e-5, elementwise_affine: bool = True, bias: bool = True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        _affine_parameters(self, self.normalized_shape, elementwise_affine, bias)

    def forward(self, input):
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        # PyTorch 2.13's form, which names bias too
        return (f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}, "
                f"bias={self.bias is not None}")


class _BatchNorm(Module):
    """Shared by BatchNorm1d (N,C or N,C,L input) and BatchNorm2d (N,C,H,W)."""
    _version = 2        # PyTorch's: version 2 added num_batches_tracked
    _input_dims: tuple = ()
    _dims_text = ""

    def __init__(self, num_features: int, eps: float = 1e-5, momentum=0.1, affine: bool = True,
                 track_running_stats: bool = True, device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _affine_parameters(self, num_features, affine)
        if track_running_stats:
            self.register_buffer("running_mean", Tensor(np.zeros(num_features, np.float32)))
            self.register_buffer("running_var", Tensor(np.ones(num_features, np.float32)))
            self.register_buffer("num_batches_tracked", Tensor(np.array(0, dtype=np.int64)))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        if self.track_running_stats:
            self.running_mean.array[...] = 0
            self.running_var.array[...] = 1
            self.num_batches_tracked.array[...] = 0

    def _upgrade_state_dict(self, state_dict, prefix: str, version) -> None:
        # A state_dict without version-2 metadata (a plain dict, or one saved before the buffer existed)
        # keeps this module's own count rather than reporting it missing, as PyTorch's _NormBase does.
        if (version is None or version < 2) and self.track_running_stats:
            state_dict.setdefault(prefix + "num_batches_tracked", self.num_batches_tracked)

    def forward(self, input):
        if input.ndim not in self._input_dims:
            raise ValueError(f"expected {self._dims_text} input (got {input.ndim}D input)")
        momentum = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            self.num_batches_tracked.array[...] += 1
            if self.momentum is None:       # cumulative moving average
                momentum = 1.0 / float(self.num_batches_tracked.array)
        use_batch_stats = self.training or not self.track_running_stats
        return F.batch_norm(input, self.running_mean, self.running_var, self.weight, self.bias,
                            use_batch_stats, momentum, self.eps)

    def extra_repr(self) -> str:
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, affine={self.affine}, "
                f"bias={self.bias is not None}, track_running_stats={self.track_running_stats}")


class BatchNorm1d(_BatchNorm):
    _input_dims, _dims_text = (2, 3), "2D or 3D"


class BatchNorm2d(_BatchNorm):
    _input_dims, _dims_text = (4,), "4D"

