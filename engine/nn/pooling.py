"""Pooling modules: MaxPool2d, AvgPool2d and AdaptiveAvgPool2d (forward = engine.functional)."""
from __future__ import annotations

from engine import functional as F
from engine.nn.module import Module
from engine.tensor import apply


class MaxPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices: bool = False,
                 ceil_mode: bool = False):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.dilation = padding, dilation
        self.return_indices, self.ceil_mode = return_indices, ceil_mode

    def forward(self, input):
        return F.max_pool2d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)

    def extra_repr(self) -> str:
        return (f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}, "
                f"dilation={self.dilation}, ceil_mode={self.ceil_mode}")


class AvgPool2d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
                 count_include_pad: bool = True, divisor_override=None):
        super().__init__()
        self.kernel_size = kernel_size
        self.stride = stride if stride is not None else kernel_size
        self.padding, self.ceil_mode = padding, ceil_mode
        self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

    def forward(self, input):
        return F.avg_pool2d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                            self.count_include_pad, self.divisor_override)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def adaptive_avg_pool2d(input, output_size):
    """Output size 1 is a mean over H and W (what PyTorch itself computes, grad_fn MeanBackward1);
    other sizes are the adaptive_avg_pool2d op (PyTorch's bins, AdaptiveAvgPool2DBackward0)."""
    out_h, out_w = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if input.ndim not in (3, 4) or 0 in input.array.shape[-3:]:
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.array.shape)}")
    h, w = input.array.shape[-2:]
    out_h, out_w = h if out_h is None else int(out_h), w if out_w is None else int(out_w)
    if (out_h, out_w) == (1, 1):
        return F.mean(input, dim=(-2, -1), keepdim=True)
    return apply("adaptive_avg_pool2d", input, output_size=(out_h, out_w))


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
