"""Padding and upsampling modules: ZeroPad/ConstantPad/ReflectionPad/ReplicationPad/CircularPad (1-d, 2-d),
Upsample, UpsamplingNearest2d and UpsamplingBilinear2d (forward = F.pad / F.interpolate)."""
from __future__ import annotations

from engine import functional as F
from engine.nn.module import Module


class _PadNd(Module):
    nd = 2
    mode = "constant"

    def __init__(self, padding, value: float = 0.0):
        super().__init__()
        self.padding = tuple(padding) if isinstance(padding, (tuple, list)) else (padding,) * (2 * self.nd)
        if self.mode == "constant":
            self.value = value

    def forward(self, input):
        return F.pad(input, self.padding, self.mode, self.value if self.mode == "constant" else None)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    def __init__(self, padding, value: float):
        super().__init__(padding, value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    nd = 1


class ConstantPad2d(_ConstantPadNd):
    nd = 2


class ZeroPad1d(ConstantPad1d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad2d(ConstantPad2d):
    def __init__(self, padding):
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ReflectionPad1d(_PadNd):
    nd, mode = 1, "reflect"


class ReflectionPad2d(_PadNd):
    nd, mode = 2, "reflect"


class ReplicationPad1d(_PadNd):
    nd, mode = 1, "replicate"


class ReplicationPad2d(_PadNd):
    nd, mode = 2, "replicate"


class CircularPad1d(_PadNd):
    nd, mode = 1, "circular"


class CircularPad2d(_PadNd):
    nd, mode = 2, "circular"


class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, (tuple, list)):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode, self.align_corners, self.recompute_scale_factor = mode, align_corners, recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self) -> str:
        info = f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None else f"size={self.size!r}"
        return info + f", mode={self.mode!r}"


class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
