"""nn.Parameter: a leaf tensor that a Module registers as trainable, printed as PyTorch prints it."""
from __future__ import annotations

import numpy as np

from engine.format import tensor_repr
from engine.tensor import Tensor


class Parameter(Tensor):
    __slots__ = ()

    def __init__(self, data=None, requires_grad: bool = True):
        if data is None:
            data = np.empty((0,), dtype=np.float32)
        # Shares the array with `data`, as PyTorch's Parameter shares the tensor's storage.
        Tensor.__init__(self, data.array if isinstance(data, Tensor) else np.asarray(data))
        if requires_grad:
            if self.array.dtype.kind not in "fc":      # (Parameter words it unlike requires_grad_)
                raise RuntimeError("Only Tensors of floating point and complex dtype can require gradients")
            self.requires_grad_(True)

    def __repr__(self) -> str:
        return "Parameter containing:\n" + tensor_repr(self)

    __str__ = __repr__

    def __reduce_ex__(self, protocol):
        return (Parameter, (self.array, self.requires_grad))


class Buffer(Tensor):
    """nn.Buffer (PyTorch 2.5+): a tensor a Module saves in its state_dict but does not train."""
    __slots__ = ("persistent",)

    def __init__(self, data, persistent: bool = True):
        Tensor.__init__(self, data.array if isinstance(data, Tensor) else np.asarray(data))
        self.persistent = persistent


class UninitializedParameter(Parameter):
    """A lazy module's parameter before its first forward has seen the input's size: it has no shape yet;
    `materialize(shape)` gives it one (zeros, for the module's init to fill) and makes it a Parameter."""
    __slots__ = ()

    def materialize(self, shape, device=None, dtype=None) -> None:
        self.array = np.zeros(tuple(shape), dtype=np.float32)
        self.__class__ = Parameter

    def __repr__(self) -> str:
        return "<UninitializedParameter>"

    __str__ = __repr__
