"""Layers with weights (Linear, Conv2d, Embedding) and shape helpers (Flatten, Unflatten, Identity, Dropout).
Each forward calls the PyTorch-named function in engine.functional, so eager graphs show the
same ops (addmm for Linear) that PyTorch's autograd shows."""
from __future__ import annotations

import numpy as np

from engine import functional as F
from engine.nn import init
from engine.nn.module import Module
from engine.nn.parameter import Parameter
from engine.ops.dtypes import DEFAULT_FLOAT


def _empty(*shape, dtype=None) -> Parameter:
    from engine.compat.torch_dtypes import to_numpy
    return Parameter(np.zeros(shape, dtype=DEFAULT_FLOAT if dtype is None else to_numpy(dtype)))


def _pair(v) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v, v)


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class Linear(Module):
    def __init__(self, in_features: int, out_features: int, bias: bool = True, device=None, dtype=None):
        super().__init__()
        self.in_features = in_features
        self.out_features = out_features
        self.weight = _empty(out_features, in_features, dtype=dtype)
        if bias:
            self.bias = _empty(out_features, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_linear_init(self.weight, self.bias)

    def forward(self, input):
        return F.linear(input, self.weight, self.bias)

    def extra_repr(self) -> str:
        return f"in_features={self.in_features}, out_features={self.out_features}, bias={self.bias is not None}"


class Conv2d(Module):
    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None):
        super().__init__()
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            from engine.errors import UnsupportedError
            raise UnsupportedError(f"Conv2d(padding_mode={padding_mode!r}): Dagscope supports padding_mode='zeros'.")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _pair(kernel_size), _pair(stride)
        self.padding = padding if isinstance(padding, str) else _pair(padding)
        self.dilation, self.groups, self.padding_mode = _pair(dilation), groups, padding_mode
        self.weight = _empty(out_channels, in_channels // groups, *self.kernel_size, dtype=dtype)
        if bias:
            self.bias = _empty(out_channels, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_linear_init(self.weight, self.bias)

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)

    def extra_repr(self) -> str:
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0, 0):
            s += f", padding={self.padding}"
        if self.dilation != (1, 1):
            s += f", dilation={self.dilation}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight=None, _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        if max_norm is not None or scale_grad_by_freq or sparse:
            from engine.errors import UnsupportedError
            raise UnsupportedError("Embedding(max_norm=..., scale_grad_by_freq=..., sparse=...) is not supported "
                                   "by Dagscope; plain Embedding(num, dim, padding_idx=...) is.")
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.num_embeddings, self.embedding_dim, self.padding_idx = num_embeddings, embedding_dim, padding_idx
        self.max_norm, self.norm_type = max_norm, norm_type
        self.scale_grad_by_freq, self.sparse = scale_grad_by_freq, sparse
        if _weight is None:
            self.weight = _empty(num_embeddings, embedding_dim, dtype=dtype)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        init.normal_(self.weight)
        if self.padding_idx is not None:
            self.weight.array[self.padding_idx] = 0

    def forward(self, input):
        return F.embedding(input, self.weight, self.padding_idx)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        return s

    @classmethod
    def from_pretrained(cls, embeddings, freeze: bool = True, padding_idx=None, **kwargs):
        rows, cols = embeddings.array.shape
        return cls(rows, cols, padding_idx=padding_idx, _weight=embeddings.array.copy(), _freeze=freeze, **kwargs)


class Flatten(Module):
    def __init__(self, start_dim: int = 1, end_dim: int = -1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        return input.flatten(self.start_dim, self.end_dim)

    def extra_repr(self) -> str:
        return f"start_dim={self.start_dim}, end_dim={self.end_dim}"


class Unflatten(Module):
    def __init__(self, dim: int, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size    # as given: the repr shows it so

    def forward(self, input):
        shape = tuple(input.array.shape)
        dim = self.dim % len(shape)
        sizes = tuple(self.unflattened_size)
        known = int(np.prod([n for n in sizes if n != -1], dtype=np.int64))
        if (-1 not in sizes and known != shape[dim]) or (-1 in sizes and (known == 0 or shape[dim] % known)):
            raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the size of dim "
                               f"{self.dim} ({shape[dim]}) in the input tensor")
        return F.reshape(input, shape[:dim] + sizes + shape[dim + 1:])

    def extra_repr(self) -> str:
        return f"dim={self.dim}, unflattened_size={self.unflattened_size}"


class Dropout(Module):
    def __init__(self, p: float = 0.5, inplace: bool = False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return F.dropout(input, self.p, self.training, self.inplace)

    def extra_repr(self) -> str:
        return f"p={self.p}, inplace={self.inplace}"
