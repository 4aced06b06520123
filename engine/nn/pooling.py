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
    if input.ndim < 3:          # torch.nn.functional's own check, before the op's
        raise ValueError("Input dimension should be at least 3")
    sizes = (output_size, output_size) if isinstance(output_size, int) else tuple(output_size)
    if len(sizes) != 2:
        raise RuntimeError("adaptive_avg_pool2d: output_size must be 2")
    h, w = input.array.shape[-2:]
    sizes = (h if sizes[0] is None else int(sizes[0]), w if sizes[1] is None else int(sizes[1]))
    if input.array.dtype.kind != "f":
        raise NotImplementedError(f'"adaptive_avg_pool2d" not implemented for \'{F._type_word(input)}\'')
    if sizes == (1, 1) and input.ndim in (3, 4) and h and w:
        return F.mean(input, dim=(-2, -1), keepdim=True)
    return apply("adaptive_avg_pool2d", input, output_size=sizes)


class AdaptiveAvgPool2d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool2d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"


class MaxPool1d(MaxPool2d):
    """PyTorch's MaxPool1d: the options as given (an int stays an int), F.max_pool1d."""

    def forward(self, input):
        return F.max_pool1d(input, self.kernel_size, self.stride, self.padding, self.dilation,
                            ceil_mode=self.ceil_mode, return_indices=self.return_indices)


def _one(v) -> tuple:
    return tuple(v) if isinstance(v, (list, tuple)) else (v,)


class AvgPool1d(Module):
    """PyTorch's AvgPool1d: kernel_size, stride and padding kept as 1-tuples (its repr shows them so)."""

    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode: bool = False, count_include_pad: bool = True):
        super().__init__()
        self.kernel_size = _one(kernel_size)
        self.stride = _one(stride if stride is not None else kernel_size)
        self.padding, self.ceil_mode, self.count_include_pad = _one(padding), ceil_mode, count_include_pad

    def forward(self, input):
        return F.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode, self.count_include_pad)

    def extra_repr(self) -> str:
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


def adaptive_avg_pool1d(input, output_size):
    """adaptive_avg_pool2d over input.unsqueeze(-2) to (1, output_size), then squeeze(-2), as ATen's."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"adaptive_avg_pool1d() argument 'input' (position 1) must be a 2D or 3D tensor, "
                           f"got {input.ndim}D")
    size = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    return F.squeeze(adaptive_avg_pool2d(F.unsqueeze(input, -2), (1, int(size))), -2)


class AdaptiveAvgPool1d(Module):
    def __init__(self, output_size):
        super().__init__()
        self.output_size = output_size

    def forward(self, input):
        return adaptive_avg_pool1d(input, self.output_size)

    def extra_repr(self) -> str:
        return f"output_size={self.output_size}"
