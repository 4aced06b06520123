"""Layers with weights (Linear, Conv1d/2d, ConvTranspose1d/2d, Embedding) and shape helpers (Flatten, Unflatten, Identity, Dropout).
Each forward calls the PyTorch-named function in engine.functional, so eager graphs show the
same ops (addmm for Linear) that PyTorch's autograd shows."""
from __future__ import annotations

import warnings

import numpy as np

from engine import autograd
from engine import functional as F
from engine.compat.torch_dtypes import to_numpy
from engine.errors import UnsupportedError
from engine.functional.nn import refuse_embedding_options
from engine.nn import init
from engine.nn.module import Module
from engine.nn.parameter import Parameter, UninitializedParameter
from engine.ops.dtypes import DEFAULT_FLOAT


def _empty(*shape, dtype=None) -> Parameter:
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


class LazyLinear(Linear):
    """Linear whose in_features is the last dim of the first input it sees: until then its parameters are
    uninitialized; the first forward materializes and initializes them (as Linear does) and the module
    becomes a Linear (PyTorch's cls_to_become)."""

    def __init__(self, out_features: int, bias: bool = True, device=None, dtype=None):
        warnings.warn("Lazy modules are a new feature under heavy development so changes to the API or functionality "
                      "can happen at any moment.", UserWarning, stacklevel=2)
        Module.__init__(self)
        self.in_features, self.out_features = 0, out_features
        self.weight = UninitializedParameter()
        if bias:
            self.bias = UninitializedParameter()
        else:
            self.register_parameter("bias", None)

    def has_uninitialized_params(self) -> bool:
        return any(isinstance(p, UninitializedParameter) for p in (self.weight, self.bias))

    def initialize_parameters(self, input) -> None:
        if not self.has_uninitialized_params():
            return
        with autograd.no_grad():
            self.in_features = input.shape[-1]
            self.weight.materialize((self.out_features, self.in_features))
            if self.bias is not None:
                self.bias.materialize((self.out_features,))
            self.reset_parameters()

    def forward(self, input):
        self.initialize_parameters(input)
        self.__class__ = Linear
        return Linear.forward(self, input)


class _ConvNd(Module):
    """PyTorch's _ConvNd: Conv1d/Conv2d and ConvTranspose1d/2d share their parameters, init and repr."""
    nd = 2
    transposed = False

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, dilation=1,
                 groups: int = 1, bias: bool = True, padding_mode: str = "zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups:
            raise ValueError("out_channels must be divisible by groups")
        if padding_mode != "zeros":
            raise UnsupportedError(f"{type(self).__name__}(padding_mode={padding_mode!r}): Dagscope supports "
                                   "padding_mode='zeros'.")
        n = self.nd
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size, self.stride = _ntuple(kernel_size, n), _ntuple(stride, n)
        self.padding = padding if isinstance(padding, str) else _ntuple(padding, n)
        self.dilation, self.groups, self.padding_mode = _ntuple(dilation, n), groups, padding_mode
        self.output_padding = _ntuple(output_padding, n)
        shape = (in_channels, out_channels // groups) if self.transposed else (out_channels, in_channels // groups)
        self.weight = _empty(*shape, *self.kernel_size, dtype=dtype)
        if bias:
            self.bias = _empty(out_channels, dtype=dtype)
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        init.default_linear_init(self.weight, self.bias)

    def extra_repr(self) -> str:
        n = self.nd
        s = f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, stride={self.stride}"
        if self.padding != (0,) * n:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * n:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * n:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        return s


def _ntuple(v, n: int) -> tuple:
    return tuple(v) if isinstance(v, (tuple, list)) else (v,) * n


class Conv1d(_ConvNd):
    nd = 1

    def forward(self, input):
        return F.conv1d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class Conv2d(_ConvNd):
    nd = 2

    def forward(self, input):
        return F.conv2d(input, self.weight, self.bias, self.stride, self.padding, self.dilation, self.groups)


class _ConvTransposeNd(_ConvNd):
    transposed = True

    def __init__(self, in_channels: int, out_channels: int, kernel_size, stride=1, padding=0, output_padding=0,
                 groups: int = 1, bias: bool = True, dilation=1, padding_mode: str = "zeros", device=None, dtype=None):
        if isinstance(padding, str):
            raise ValueError(f'padding="{padding}" is not supported for {type(self).__name__}')
        super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                         padding_mode, device, dtype, output_padding)

    def _output_padding(self, input, output_size):
        """PyTorch's: the output_padding that makes the output `output_size` (its last nd entries)."""
        if output_size is None:
            return self.output_padding
        size = tuple(output_size)[-self.nd:]
        smallest = tuple((input.shape[-self.nd + i] - 1) * self.stride[i] - 2 * self.padding[i]
                         + self.dilation[i] * (self.kernel_size[i] - 1) + 1 for i in range(self.nd))
        for want, low, st in zip(size, smallest, self.stride):
            if not low <= want < low + st:
                raise ValueError(f"requested an output size of {list(size)}, but valid sizes range from "
                                 f"{list(smallest)} to {[lo + s - 1 for lo, s in zip(smallest, self.stride)]} "
                                 f"(for an input of {list(input.shape[-self.nd:])})")
        return tuple(w - lo for w, lo in zip(size, smallest))


class ConvTranspose1d(_ConvTransposeNd):
    nd = 1

    def forward(self, input, output_size=None):
        return F.conv_transpose1d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class ConvTranspose2d(_ConvTransposeNd):
    nd = 2

    def forward(self, input, output_size=None):
        return F.conv_transpose2d(input, self.weight, self.bias, self.stride, self.padding,
                                  self._output_padding(input, output_size), self.groups, self.dilation)


class Embedding(Module):
    def __init__(self, num_embeddings: int, embedding_dim: int, padding_idx=None, max_norm=None,
                 norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False,
                 _weight=None, _freeze: bool = False, device=None, dtype=None):
        super().__init__()
        refuse_embedding_options(max_norm, scale_grad_by_freq, sparse)
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
